import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { hashingLoad, hashPassword, verifyPassword } from "./password.server";

describe("password hashing", () => {
  it("runs at most all cores but one hash at a time, and answers every caller", async () => {
    const hashed = await hashPassword("correct horse battery");
    const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const limit = Math.max(1, Math.min(availableParallelism() - 1, pool - 1));
    const attempts = Array.from({ length: limit + 4 }, (_, i) =>
      verifyPassword(hashed, i % 2 ? "correct horse battery" : "wrong"),
    );
    const load = hashingLoad();
    expect(load.active).toBeLessThanOrEqual(limit);
    expect(load.active + load.pending).toBe(limit + 4);
    const answers = await Promise.all(attempts);
    expect(answers).toEqual(attempts.map((_, i) => i % 2 === 1));
    expect(hashingLoad()).toEqual({ active: 0, pending: 0 });
  });

  it("refuses a stored value that is no argon2 hash instead of throwing", async () => {
    expect(await verifyPassword("not-a-hash", "anything")).toBe(false);
    expect(hashingLoad()).toEqual({ active: 0, pending: 0 });
  });
});
