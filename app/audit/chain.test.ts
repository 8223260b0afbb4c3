import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { signLegacyHead } from "../../db/migrations/033_audit_hash_version";
import { freshLog, auditOrigin as origin, rowAt } from "../../test/audit-chain";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { audit } from "./audit.server";
import { type ChainedFields, chainHash, keyedChainHash } from "./chain";
import { recordHead } from "./checkpoint.server";
import { purgeExpiredAudit } from "./retention.server";
import { chainKey } from "./signing.server";
import { verifyAuditChain } from "./verify.server";

// The audit log's hash chain and its checkpoints (docs/decisions/031-tamper-evident-audit-log.md):
// each way of tampering with the table is caught by the verifier, naming the row it concerns.

/**
 * A link as the application computes it. The tampering below is by someone who holds the key too:
 * the chain's structure and the checkpoints still name it (without the key, see checkpoint.test.ts).
 */
const link = (prevHash: string, row: ChainedFields) => keyedChainHash(chainKey(), prevHash, row);

beforeEach(async () => {
  await setupDatabase();
  await freshLog(6);
});

describe("the audit hash chain", () => {
  it("links every row written, in one transaction with its change, and verifies", async () => {
    const rows = await db().selectFrom("audit_log").selectAll().orderBy("seq").execute();
    expect(rows.map((r) => Number(r.seq))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[0]!.prev_hash).toBe("0".repeat(64));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(await db().selectFrom("audit_chain").selectAll().executeTakeFirst()).toMatchObject({
      seq: 6,
      hash: rows[5]!.hash,
    });
    // A rolled-back change leaves neither its row nor a moved head.
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await audit(origin(), { action: "settings.update" }, trx);
          throw new Error("change failed");
        }),
    ).rejects.toThrow("change failed");
    expect(Number((await db().selectFrom("audit_chain").select("seq").executeTakeFirstOrThrow()).seq)).toBe(
      6,
    );
    expect(await verifyAuditChain()).toMatchObject({ ok: true, rows: 6, upTo: rows[5]!.created_at });
  });

  it("names an edited row", async () => {
    await db()
      .updateTable("audit_log")
      .set({ actor_email: "someone-else@example.test" })
      .where("seq", "=", 3)
      .execute();
    expect(await verifyAuditChain()).toMatchObject({
      ok: false,
      problem: "edited",
      seq: 3,
      id: (await rowAt(3)).id,
    });
  });

  it("names an edited row whose hash was recomputed (the next row no longer links to it)", async () => {
    const row = await rowAt(3);
    const details = JSON.stringify({ i: 99 });
    const hash = link(row.prev_hash!, { ...row, seq: 3, details });
    await db().updateTable("audit_log").set({ details, hash }).where("seq", "=", 3).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "edited", seq: 3, id: row.id });
  });

  it("names a deleted row, at the start, in the middle and at the end", async () => {
    await db().deleteFrom("audit_log").where("seq", "=", 4).execute();
    expect(await verifyAuditChain()).toMatchObject({
      ok: false,
      problem: "deleted",
      seq: 5,
      message: expect.stringMatching(/Row #4 is missing/),
    });

    await freshLog(6);
    await db().deleteFrom("audit_log").where("seq", "=", 1).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "deleted", seq: 2 });

    await freshLog(6);
    await db().deleteFrom("audit_log").where("seq", "=", 6).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "deleted", seq: 5 });
  });

  it("names an inserted row: one written outside the application, one slipped into the chain, one added at its end", async () => {
    const id = randomUUID();
    await db()
      .insertInto("audit_log")
      .values({ id, action: "user.delete", created_at: new Date().toISOString() } as never)
      .execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "outside the chain", id });

    // Rows 4.. moved up one place, a forged row #4 hashed onto row #3 so it looks linked.
    await freshLog(6);
    for (const seq of [6, 5, 4])
      await db()
        .updateTable("audit_log")
        .set({ seq: seq + 1 })
        .where("seq", "=", seq)
        .execute();
    const three = await rowAt(3);
    const forged = { ...three, id: randomUUID(), seq: 4, action: "role.update", details: null };
    await db()
      .insertInto("audit_log")
      .values({ ...forged, prev_hash: three.hash, hash: link(three.hash!, forged) })
      .execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "inserted", seq: 4, id: forged.id });

    await freshLog(6);
    const six = await rowAt(6);
    const tail = { ...six, id: randomUUID(), seq: 7 };
    await db()
      .insertInto("audit_log")
      .values({ ...tail, prev_hash: six.hash, hash: link(six.hash!, tail) })
      .execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "inserted", seq: 7, id: tail.id });
  });

  it("names two rows that were reordered", async () => {
    const [three, four] = [await rowAt(3), await rowAt(4)];
    await db().updateTable("audit_log").set({ seq: -4 }).where("id", "=", four.id).execute();
    await db().updateTable("audit_log").set({ seq: 4 }).where("id", "=", three.id).execute();
    await db().updateTable("audit_log").set({ seq: 3 }).where("id", "=", four.id).execute();
    expect(await verifyAuditChain()).toMatchObject({
      ok: false,
      problem: "reordered",
      seq: 3,
      id: four.id,
      message: expect.stringMatching(/written as row #4/),
    });
  });

  it("catches a chain rewritten from an edited row on, by the signed checkpoint", async () => {
    expect(await recordHead()).toMatchObject({ kind: "head", seq: 6 });
    expect(await recordHead()).toBeNull(); // nothing new: no second checkpoint for the same head
    // Row 2 edited and every hash after it recomputed, head included: the links all hold.
    let prev = (await rowAt(1)).hash!;
    for (let seq = 2; seq <= 6; seq++) {
      const row = await rowAt(seq);
      const changed = seq === 2 ? { ...row, seq, actor_email: "nobody@example.test" } : { ...row, seq };
      const hash = link(prev, changed);
      await db()
        .updateTable("audit_log")
        .set({ actor_email: changed.actor_email, prev_hash: prev, hash })
        .where("id", "=", row.id)
        .execute();
      prev = hash;
    }
    await db().updateTable("audit_chain").set({ hash: prev }).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "rewritten", seq: 6 });
  });

  it("refuses a checkpoint that was not signed with the key, and one signed with another key", async () => {
    const checkpoint = (await recordHead())!;
    await db().updateTable("audit_checkpoint").set({ seq: 5 }).where("id", "=", checkpoint.id).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "checkpoint forged" });
    await db().updateTable("audit_checkpoint").set({ seq: 6 }).where("id", "=", checkpoint.id).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
    const saved = process.env.AUDIT_SIGNING_KEY;
    process.env.AUDIT_SIGNING_KEY = "another-key-entirely";
    resetEnvCache();
    try {
      expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "checkpoint forged" });
    } finally {
      if (saved === undefined) delete process.env.AUDIT_SIGNING_KEY;
      else process.env.AUDIT_SIGNING_KEY = saved;
      resetEnvCache();
    }
  });

  it("catches rows cut from the end below a signed checkpoint, even with the head moved back", async () => {
    await recordHead();
    const five = await rowAt(5);
    await db().deleteFrom("audit_log").where("seq", "=", 6).execute();
    await db().updateTable("audit_chain").set({ seq: 5, hash: five.hash! }).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "deleted", seq: 5 });
  });

  it("retention cuts the oldest end only and leaves a chain that verifies; a cut without it does not", async () => {
    const old = new Date(Date.now() - 400 * 86_400_000).toISOString();
    await db().updateTable("audit_log").set({ created_at: old }).where("seq", "<=", 2).execute();
    // Editing created_at broke rows 1-2: re-chain them as if written then, before the keyed chain
    // (version 1, plain SHA-256): they verify as they are, and retention's keyed row follows them.
    let prev = "0".repeat(64);
    for (let seq = 1; seq <= 6; seq++) {
      const row = await rowAt(seq);
      const hash = chainHash(prev, { ...row, seq });
      await db()
        .updateTable("audit_log")
        .set({ prev_hash: prev, hash, hash_version: null })
        .where("seq", "=", seq)
        .execute();
      prev = hash;
    }
    await db().updateTable("audit_chain").set({ hash: prev }).execute();
    await signLegacyHead(db() as unknown as Kysely<unknown>);
    expect(await verifyAuditChain()).toMatchObject({ ok: true, rows: 6 });

    expect(await purgeExpiredAudit(365)).toBe(2);
    const left = await db().selectFrom("audit_log").select(["seq", "action"]).orderBy("seq").execute();
    expect(left.map((r) => Number(r.seq))).toEqual([3, 4, 5, 6, 7]);
    expect(left.at(-1)!.action).toBe("audit.retention");
    expect(
      await db().selectFrom("audit_checkpoint").select(["kind", "seq"]).orderBy("seq").execute(),
    ).toEqual([
      { kind: "start", seq: 3 },
      { kind: "head", seq: 6 },
      { kind: "head", seq: 7 },
    ]);
    expect(await verifyAuditChain()).toMatchObject({ ok: true, rows: 5 });

    // The same cut by hand: no signed start for where the chain now begins.
    await db().deleteFrom("audit_log").where("seq", "=", 3).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "deleted", seq: 4 });
  });

  it.runIf(onPostgres)("does not fork under concurrent writers on PostgreSQL", async () => {
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        db()
          .transaction()
          .execute(async (trx) => {
            await sql`select pg_sleep(${(i % 4) / 200})`.execute(trx);
            await audit(origin(), { action: "settings.update", details: { i } }, trx);
          }),
      ),
    );
    const seqs = (await db().selectFrom("audit_log").select("seq").orderBy("seq").execute()).map((r) =>
      Number(r.seq),
    );
    expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await verifyAuditChain()).toMatchObject({ ok: true, rows: 30 });
  });
});
