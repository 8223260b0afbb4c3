import { afterAll, describe, expect, it } from "vitest";
import { postgresPoolOf } from "../../db/connection";
import { setupDatabase } from "../../test/helpers";
import { onPostgres } from "../../test/postgres-schema";
import { db } from "../db.server";
import { createLimiters, purgeExpiredRateLimits, resetRateLimits } from "./rate-limit.server";

describe.skipIf(!onPostgres)("rate limits shared through PostgreSQL", () => {
  afterAll(() => resetRateLimits());

  it("counts one attempt budget across instances, not one per instance", async () => {
    await setupDatabase();
    const pool = postgresPoolOf(db())!;
    const a = createLimiters(pool);
    const b = createLimiters(pool);
    const budget = a.publicFormPerIp.points;
    for (let i = 0; i < budget; i++) await (i % 2 ? a : b).publicFormPerIp.consume("198.51.100.1");
    await expect(b.publicFormPerIp.consume("198.51.100.1")).rejects.toMatchObject({ remainingPoints: 0 });
    await expect(a.publicFormPerIp.consume("198.51.100.2")).resolves.toBeTruthy();
  });

  it("purges expired counters and keeps live ones", async () => {
    const pool = postgresPoolOf(db())!;
    await pool.query("insert into rate_limit (key, points, expire) values ('old', 1, $1)", [
      Date.now() - 1000,
    ]);
    expect(await purgeExpiredRateLimits()).toBe(1);
    const { rows } = await pool.query("select count(*) as n from rate_limit");
    expect(Number(rows[0].n)).toBeGreaterThan(0);
  });
});
