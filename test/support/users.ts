import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { hashPassword } from "../../app/auth/password.server";
import type { Database } from "../../db/schema";

export type NewUser = {
  roles?: string[];
  email?: string;
  name?: string;
  /** Defaults to true: only verified accounts may sign in. */
  verified?: boolean;
  status?: "active" | "disabled";
  password?: string;
};

// Hashing is slow on purpose; one hash per password serves every user of a run.
const hashes = new Map<string, Promise<string>>();

/** A hash made once for the run (vitest's test/database-template.ts), so each test file need not. */
export function rememberPasswordHash(password: string, hash: string) {
  if (!hashes.has(password)) hashes.set(password, Promise.resolve(hash));
}

/**
 * The one way tests make a user: straight into `db` (Vitest passes the test file's `db()`,
 * Playwright the e2e database), verified and active unless told otherwise, holding `roles`.
 */
export async function createUser(db: Kysely<Database>, opts: NewUser & { password: string }) {
  const id = randomUUID();
  const roles = opts.roles ?? [];
  const email = opts.email ?? `${roles.join("-") || "user"}-${id.slice(0, 8)}@example.test`;
  const name = opts.name ?? `User ${id.slice(0, 4)}`;
  if (!hashes.has(opts.password)) hashes.set(opts.password, hashPassword(opts.password));
  const ts = new Date().toISOString();
  await db
    .insertInto("user")
    .values({
      id,
      name,
      email,
      email_verified: opts.verified === false ? 0 : 1,
      password_hash: await hashes.get(opts.password)!,
      status: opts.status ?? "active",
      created_at: ts,
      updated_at: ts,
    })
    .execute();
  for (const role of roles) {
    const r = await db.selectFrom("role").select("id").where("name", "=", role).executeTakeFirstOrThrow();
    await db.insertInto("user_role").values({ user_id: id, role_id: r.id }).execute();
  }
  return { id, email, name, password: opts.password };
}
