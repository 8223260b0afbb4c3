import { describe, expect, it } from "vitest";
import { fuzzApp, fuzzTargets, intentsIn, startFuzzApp, TABLE } from "./fuzz/harness";

// Malformed, oversized, wrong-typed and hostile requests to every action intent, API endpoint and
// loader, through the real request pipeline, as a super admin (so validation, not permission, is
// what answers), with a few runs as a guest and signed out. Each answer must be below 500, and a
// refusal (4xx) must leave the database as it was (test/fuzz/snapshot.ts says what that covers).
// Deterministic: one fixed seed; a failure prints the request that caused it.
// A route with a loader or action, or an intent its module tests for, missing from the table
// fails the first test: a new route or intent must be added to test/fuzz/table-*.ts. The
// dashboard's actions run in test/fuzz-settings.test.ts and test/fuzz-dashboard.test.ts (the
// machinery: test/fuzz/harness.ts), the public pages, the API and every loader here.

startFuzzApp();

describe("fuzz: hostile input to every route", () => {
  it("covers every route with a loader or action, and every intent", () => {
    const missing: string[] = [];
    for (const route of fuzzApp().routes) {
      const rows = TABLE.filter((t) => t.route === route.id);
      if (route.hasLoader && !rows.some((t) => t.method === "GET")) missing.push(`GET ${route.id}`);
      if (route.hasAction && !rows.some((t) => t.method === "POST")) missing.push(`POST ${route.id}`);
      for (const intent of intentsIn(route.id))
        if (!rows.some((t) => t.intent === intent)) missing.push(`${route.id} intent ${intent}`);
    }
    expect(missing).toEqual([]);
  });

  fuzzTargets("rest");
});
