import { createHmac, timingSafeEqual } from "node:crypto";
import type { AuditCheckpointTable } from "../../db/schema";
import { env, sessionSecrets } from "../env.server";
import { type ChainedFields, keyedChainHash } from "./chain";

// The audit signing keys (docs/decisions/031-tamper-evident-audit-log.md): AUDIT_SIGNING_KEY, else
// derived from SESSION_SECRET, so an installation that set neither still signs with a secret the
// database does not hold. A comma-separated list rotates: the first signs, every one verifies.
// Each purpose gets its own derived key, so a row's link never doubles as a checkpoint signature.

export type Checkpoint = AuditCheckpointTable;

type Purpose = "audit-checkpoint" | "audit-chain";

function keys(purpose: Purpose): Buffer[] {
  const dedicated = (env().AUDIT_SIGNING_KEY ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  const material = dedicated.length ? dedicated : sessionSecrets();
  return material.map((m) => createHmac("sha256", purpose).update(m).digest());
}

/** The key new rows' links are written with (app/audit/audit.server.ts). */
export function chainKey(): Buffer {
  return keys("audit-chain")[0]!;
}

/** For a verification: whether a keyed row's hash is its link under any configured key. */
export function keyedLinkChecker(): (prevHash: string, row: ChainedFields, hash: string) => boolean {
  const all = keys("audit-chain");
  return (prevHash, row, hash) => all.some((key) => keyedChainHash(key, prevHash, row) === hash);
}

function signWith(key: Buffer, c: Omit<Checkpoint, "id" | "signature">): Buffer {
  return createHmac("sha256", key).update(`v1\n${c.kind}\n${c.seq}\n${c.hash}\n${c.created_at}`).digest();
}

/** A checkpoint's signature with the signing key. */
export function signCheckpoint(c: Omit<Checkpoint, "id" | "signature">): string {
  return signWith(keys("audit-checkpoint")[0]!, c).toString("hex");
}

/** Whether a stored checkpoint was signed by one of the configured keys. */
export function checkpointSigned(c: Checkpoint): boolean {
  const given = Buffer.from(c.signature, "hex");
  return keys("audit-checkpoint").some((key) => {
    const expected = signWith(key, c);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
