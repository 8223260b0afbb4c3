import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { hash, verify } from "@node-rs/argon2";
import pLimit from "p-limit";

// argon2id with the OWASP-recommended minimums (19 MiB, 2 passes).
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

// Each hash takes a core for ~20 ms on libuv's pool (4 threads). Run four at once on two cores and
// the event loop gets a third of a core: a page's p99 went from 250 ms to 800 ms while sign-ins
// ran (issue 23). At most all cores but one hash at a time; the others wait their turn.
// Nor more than libuv's pool less one thread: the pool also serves compression, files and DNS.
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const hashing = pLimit(Math.max(1, Math.min(availableParallelism() - 1, POOL_THREADS - 1)));

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, OPTIONS));
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await hashing(() => verify(hashed, password));
  } catch {
    return false;
  }
}

/** How many hashes run or wait now (tests). */
export function hashingLoad(): { active: number; pending: number } {
  return { active: hashing.activeCount, pending: hashing.pendingCount };
}

// A valid hash to verify against when the account does not exist, so timing does not reveal it.
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  if (!dummyHash) dummyHash = hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
