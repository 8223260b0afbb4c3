import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { signLegacyHead } from "../../db/migrations/033_audit_hash_version";
import { auditCheckpoint } from "../../scripts/audit-checkpoint";
import { auditOrigin, freshLog, rowAt } from "../../test/audit-chain";
import { setupDatabase } from "../../test/helpers";
import { db, now } from "../db.server";
import { metrics, resetMetrics } from "../metrics/metrics.server";
import { audit } from "./audit.server";
import { chainHash, keyedChainHash } from "./chain";
import { recordHead } from "./checkpoint.server";
import { verifyAuditChain } from "./verify.server";

// Someone who can write the database but does not hold AUDIT_SIGNING_KEY
// (docs/decisions/031-tamper-evident-audit-log.md): whatever they add or change with a correct
// plain SHA-256 link is named by the verifier, and no checkpoint seals it.

beforeEach(async () => {
  await setupDatabase();
  await freshLog(4);
  await db().deleteFrom("webhook_endpoint").execute();
  // A receiver of the alert, so its message shows in webhook_message.
  await db()
    .insertInto("webhook_endpoint")
    .values({
      id: randomUUID(),
      url: "https://siem.example.com/hook",
      events: JSON.stringify(["audit.integrity_failed"]),
      secret: "whsec_test",
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      disabled_reason: null,
      created_by: null,
      created_at: now(),
      updated_at: now(),
    })
    .execute();
  resetMetrics();
});

/** Appends a forged row #5 linked to the head with a correct plain SHA-256 hash, and moves the head to it. */
async function forgeTail() {
  const four = await rowAt(4);
  const forged = {
    ...four,
    id: randomUUID(),
    seq: 5,
    action: "user.delete",
    details: null,
    hash_version: null,
  };
  const hash = chainHash(four.hash!, forged);
  await db()
    .insertInto("audit_log")
    .values({ ...forged, prev_hash: four.hash, hash })
    .execute();
  await db().updateTable("audit_chain").set({ seq: 5, hash }).execute();
  return forged;
}

const alerts = () =>
  db()
    .selectFrom("webhook_message")
    .select(["type", "body"])
    .where("type", "=", "audit.integrity_failed")
    .execute();

describe("a row forged with database access alone", () => {
  it("is named by the verifier, before any checkpoint and after one", async () => {
    const forged = await forgeTail();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, seq: 5, id: forged.id });

    await freshLog(4);
    expect(await recordHead()).toMatchObject({ kind: "head", seq: 4 });
    const after = await forgeTail();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, seq: 5, id: after.id });
  });

  it("is not sealed by a checkpoint: nothing is signed and the alert is raised", async () => {
    expect(await recordHead()).toMatchObject({ kind: "head", seq: 4 });
    const forged = await forgeTail();
    await expect(recordHead()).rejects.toThrow(/Row #5/);
    expect(await db().selectFrom("audit_checkpoint").select(["kind", "seq"]).execute()).toEqual([
      { kind: "head", seq: 4 },
    ]);
    expect((await metrics().auditIntegrityFailures.get()).values[0]?.value).toBe(1);
    const [message, ...more] = await alerts();
    expect(more).toEqual([]);
    expect(JSON.parse(message!.body)).toMatchObject({
      type: "audit.integrity_failed",
      data: { seq: 5, id: forged.id },
    });
    // Still named afterwards: nothing sealed it.
    expect(await verifyAuditChain()).toMatchObject({ ok: false, seq: 5, id: forged.id });
  });

  it("names a row whose details were changed and its plain hash recomputed, the head moved with it", async () => {
    const four = await rowAt(4);
    const details = JSON.stringify({ i: 99 });
    const hash = chainHash(four.prev_hash!, { ...four, seq: 4, details });
    await db()
      .updateTable("audit_log")
      .set({ details, hash, hash_version: null })
      .where("seq", "=", 4)
      .execute();
    await db().updateTable("audit_chain").set({ hash }).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, seq: 4, id: four.id });
    await expect(recordHead()).rejects.toThrow(/Row #4/);
    expect(await db().selectFrom("audit_checkpoint").select("id").execute()).toEqual([]);
  });
});

describe("rows of both hash versions", () => {
  /** Rows 1-2 as the version before wrote them (plain SHA-256), their head signed by migration 033. */
  async function legacyLog() {
    await freshLog(2);
    let prev = "0".repeat(64);
    for (let seq = 1; seq <= 2; seq++) {
      const hash = chainHash(prev, { ...(await rowAt(seq)), seq });
      await db()
        .updateTable("audit_log")
        .set({ prev_hash: prev, hash, hash_version: null })
        .where("seq", "=", seq)
        .execute();
      prev = hash;
    }
    await db().updateTable("audit_chain").set({ hash: prev }).execute();
    await signLegacyHead(db() as unknown as Kysely<unknown>);
  }

  it("verifies rows written before the keyed chain as they are, and keyed rows after them", async () => {
    await legacyLog();
    await audit(auditOrigin(), { action: "settings.update" });
    await audit(auditOrigin(), { action: "settings.update" });
    expect((await rowAt(3)).hash_version).toBe(2);
    expect(await verifyAuditChain()).toMatchObject({ ok: true, rows: 4 });
    expect(await recordHead()).toMatchObject({ kind: "head", seq: 4 });
  });

  it("names a plain row appended after the last row written before the keyed chain", async () => {
    await legacyLog();
    const two = await rowAt(2);
    const forged = { ...two, id: randomUUID(), seq: 3, hash_version: null };
    const hash = chainHash(two.hash!, forged);
    await db()
      .insertInto("audit_log")
      .values({ ...forged, prev_hash: two.hash, hash })
      .execute();
    await db().updateTable("audit_chain").set({ seq: 3, hash }).execute();
    expect(await verifyAuditChain()).toMatchObject({
      ok: false,
      problem: "not signed",
      seq: 3,
      id: forged.id,
    });
  });

  it("names a keyed-looking row whose link was computed with another key", async () => {
    const four = await rowAt(4);
    const forged = { ...four, id: randomUUID(), seq: 5 };
    const hash = keyedChainHash(Buffer.from("not the key"), four.hash!, forged);
    await db()
      .insertInto("audit_log")
      .values({ ...forged, prev_hash: four.hash, hash })
      .execute();
    await db().updateTable("audit_chain").set({ seq: 5, hash }).execute();
    expect(await verifyAuditChain()).toMatchObject({ ok: false, problem: "edited", seq: 5, id: forged.id });
  });
});

describe("npm run audit:checkpoint", () => {
  it("signs the head of a chain that verifies, and refuses a forged one naming the row (exit 1)", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const run = () =>
      auditCheckpoint(
        (l) => out.push(l),
        (l) => err.push(l),
      );
    expect(await run()).toBe(0);
    expect(out).toEqual(["signed checkpoint at row 4"]);
    expect(await run()).toBe(0);
    expect(out[1]).toBe("row 4 is already signed: nothing new to sign");

    await forgeTail();
    expect(await run()).toBe(1);
    expect(err[0]).toMatch(/^audit log NOT intact \(not signed\): Row #5 /);
    expect(err[1]).toBe("Nothing was signed.");
    expect(await db().selectFrom("audit_checkpoint").select("seq").execute()).toEqual([{ seq: 4 }]);
    expect(await alerts()).toHaveLength(1);
  });
});
