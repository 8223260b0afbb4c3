import { audit } from "../app/audit/audit.server";
import { db } from "../app/db.server";
import { args, request } from "./helpers";

// The audit chain's tests share these (app/audit/chain.test.ts, checkpoint.test.ts).

export const auditOrigin = () => args(request("/dashboard")) as { request: Request };

/** A fresh log of `n` rows written by the application, with no checkpoint. */
export async function freshLog(n: number) {
  await db().deleteFrom("audit_checkpoint").execute();
  await db().deleteFrom("audit_log").execute();
  await db()
    .updateTable("audit_chain")
    .set({ seq: 0, hash: "0".repeat(64) })
    .execute();
  for (let i = 0; i < n; i++)
    await audit(auditOrigin(), {
      action: "settings.update",
      target: { type: "settings", id: null },
      details: { i },
    });
}

export async function rowAt(seq: number) {
  return db().selectFrom("audit_log").selectAll().where("seq", "=", seq).executeTakeFirstOrThrow();
}
