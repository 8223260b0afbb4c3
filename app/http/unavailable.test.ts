import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../db/unavailable";
import { type AppServer, startApp } from "../../test/app-server";
import { setupDatabase, signedIn } from "../../test/helpers";
import { closeDb } from "../db.server";
import { resetEnvCache } from "../env.server";
import { clearLocal } from "../events/cluster.server";

// A request that needs an unreachable database is answered 503 with Retry-After, through the whole
// pipeline: an API's `{"error":"unavailable"}`, a page's error boundary, a `.data` request's error.
// "Unreachable" here is a PostgreSQL address where nothing listens (connection refused), which any
// test run can have; test/database-restart.test.ts restarts a real server under the production build.
const NOWHERE = "postgres://nobody@127.0.0.1:41299/nothing";

let app: AppServer;
let cookie: string;
let ownUrl: string;

async function useDatabase(url: string) {
  process.env.DATABASE_URL = url;
  resetEnvCache();
  await closeDb();
}

beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
  ({ cookie } = await signedIn(["admin"]));
  ownUrl = process.env.DATABASE_URL!;
  // Loads each page once, so what follows meets the database, not a cold module.
  for (const path of ["/api/tasks", "/dashboard/users"])
    expect((await app.fetch(path, { cookie })).status).toBe(200);
});

afterAll(async () => {
  await useDatabase(ownUrl);
  await app.close();
});

describe("while the database is unreachable", () => {
  it("answers API, page and data requests 503 with Retry-After, and 200 again once it is back", async () => {
    await useDatabase(NOWHERE);

    const api = await app.fetch("/api/tasks", { cookie });
    expect(api.status).toBe(503);
    expect(api.headers.get("retry-after")).toBe("2");
    expect(await api.json()).toEqual({ error: "unavailable", retryAfter: 2 });

    const page = await app.fetch("/dashboard/users", { cookie });
    expect(page.status).toBe(503);
    expect(page.headers.get("retry-after")).toBe("2");
    const html = await page.text();
    expect(html).toContain("Error 503");
    expect(html).toContain("The service is briefly unavailable");

    const data = await app.fetch("/dashboard/users.data?_routes=routes%2Fdashboard.users", { cookie });
    expect(data.status).toBe(503);
    expect(data.headers.get("retry-after")).toBe("2");

    // A form post whose session or action needs the database: the same.
    const post = await app.fetch("/api/tasks", {
      method: "POST",
      cookie,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 10 } }),
    });
    expect(post.status).toBe(503);

    // The session itself unread (another instance signed the person in, or its cache expired): the
    // session middleware fails, which on an API route React Router throws through the middleware.
    clearLocal("sessions");
    const fresh = await app.fetch("/api/tasks", {
      method: "POST",
      cookie,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "report.generate", payload: { durationMs: 10 } }),
    });
    expect(fresh.status).toBe(503);
    expect(fresh.headers.get("retry-after")).toBe("2");
    expect(await fresh.json()).toEqual({ error: "unavailable", retryAfter: 2 });
    // Built by the 503's own middleware, it still gets the security headers every answer has.
    expect(fresh.headers.get("x-content-type-options")).toBe("nosniff");
    clearLocal("sessions");
    const freshPage = await app.fetch("/dashboard/users", { cookie });
    expect(freshPage.status).toBe(503);

    await useDatabase(ownUrl);
    expect((await app.fetch("/api/tasks", { cookie })).status).toBe(200);
    expect((await app.fetch("/dashboard/users", { cookie })).status).toBe(200);
  });
});

describe("isDatabaseUnavailable", () => {
  it("knows connection failures from query errors", () => {
    const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });
    for (const error of [
      coded("ECONNREFUSED"),
      coded("ECONNRESET"),
      coded("57P01", "terminating connection due to administrator command"),
      coded("57P03", "the database system is starting up"),
      coded("08006"),
      // Every instance reconnecting at once after a restart, and a failover's standby refusing writes.
      coded("53300", "sorry, too many clients already"),
      coded("25006", "cannot execute UPDATE in a read-only transaction"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
      new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]),
      new Error("wrapped", { cause: coded("ECONNRESET") }),
    ])
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    for (const error of [
      coded("23505", "duplicate key value violates unique constraint"),
      coded("42P01", "relation does not exist"),
      coded("SQLITE_CONSTRAINT"),
      new TypeError("x is undefined"),
      "ECONNREFUSED",
      null,
    ])
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
  });
});
