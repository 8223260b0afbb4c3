import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Database, UserTokenTable } from "../../db/schema";
import { TOKEN_LIFETIME_MS } from "../config";
import { db, now } from "../db.server";

// Single-use link tokens: 32 random bytes in the link, only their SHA-256 in the database,
// so a leaked table cannot be turned into working links.

export type TokenKind = UserTokenTable["kind"];

type Executor = Kysely<Database> | Transaction<Database>;

export function hashToken(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

export async function issueToken(
  input: { kind: TokenKind; userId: string | null; data?: Record<string, unknown> },
  executor: Executor = db(),
): Promise<string> {
  return (await issueTokenRow(input, executor)).raw;
}

/** issueToken, also naming the row (an invitation's id, which the pending list shows). */
export async function issueTokenRow(
  input: { kind: TokenKind; userId: string | null; data?: Record<string, unknown> },
  executor: Executor = db(),
): Promise<{ id: string; raw: string }> {
  const raw = randomBytes(32).toString("base64url");
  const id = randomUUID();
  const created = Date.now();
  await executor
    .insertInto("user_token")
    .values({
      id,
      user_id: input.userId,
      kind: input.kind,
      token_hash: hashToken(raw),
      data: input.data ? JSON.stringify(input.data) : null,
      expires_at: new Date(created + TOKEN_LIFETIME_MS[input.kind]).toISOString(),
      used_at: null,
      created_at: new Date(created).toISOString(),
    })
    .execute();
  return { id, raw };
}

export type TokenProblem = "invalid" | "used" | "expired";

type ValidToken = {
  id: string;
  kind: TokenKind;
  userId: string | null;
  data: Record<string, unknown>;
};

export type TokenCheck = { ok: true; token: ValidToken } | { ok: false; reason: TokenProblem };

/** Looks a token up without spending it (for pages that show a form first). */
export async function inspectToken(
  kinds: TokenKind[],
  raw: unknown,
  executor: Executor = db(),
): Promise<TokenCheck> {
  if (typeof raw !== "string" || raw.length < 20 || raw.length > 200) return { ok: false, reason: "invalid" };
  const row = await executor
    .selectFrom("user_token")
    .selectAll()
    .where("token_hash", "=", hashToken(raw))
    .where("kind", "in", kinds)
    .executeTakeFirst();
  if (!row) return { ok: false, reason: "invalid" };
  if (row.used_at) return { ok: false, reason: "used" };
  if (row.expires_at <= now()) return { ok: false, reason: "expired" };
  return {
    ok: true,
    token: { id: row.id, kind: row.kind, userId: row.user_id, data: row.data ? JSON.parse(row.data) : {} },
  };
}

/** Checks and spends a token; of two concurrent uses, only the first one succeeds. */
export async function consumeToken(
  kinds: TokenKind[],
  raw: unknown,
  executor: Executor = db(),
): Promise<TokenCheck> {
  const check = await inspectToken(kinds, raw, executor);
  if (!check.ok) return check;
  const result = await executor
    .updateTable("user_token")
    .set({ used_at: now() })
    .where("id", "=", check.token.id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return { ok: false, reason: "used" };
  return check;
}

/** Spends every open token of the kinds for a user (e.g. older reset links once one was used). */
export async function spendTokens(
  userId: string,
  kind: TokenKind | readonly TokenKind[],
  executor: Executor = db(),
) {
  const kinds: readonly TokenKind[] = typeof kind === "string" ? [kind] : kind;
  await executor
    .updateTable("user_token")
    .set({ used_at: now() })
    .where("user_id", "=", userId)
    .where("kind", "in", kinds)
    .where("used_at", "is", null)
    .execute();
}
