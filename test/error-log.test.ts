import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type AppServer, startApp } from "./app-server";
import { setupDatabase } from "./helpers";

// A request that is simply wrong (an action on a page without one, an unknown path) is answered
// with a 4xx and is not a fault: it must not print a stack trace, or anyone can flood the logs.
let app: AppServer;
beforeAll(async () => {
  await setupDatabase();
  app = await startApp();
});
afterAll(() => app?.close());

it("answers a POST to a page without an action, or to no page, without logging a stack", async () => {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    for (const path of ["/nonexistent", "/nonexistent.data", "/", "/api/ping"]) {
      const res = await app.fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "a=1",
      });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
    expect(errors).not.toHaveBeenCalled();
  } finally {
    errors.mockRestore();
  }
});
