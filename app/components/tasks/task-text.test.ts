import { describe, expect, it } from "vitest";
import { tFor } from "../../i18n/i18n.server";
import { TASK_REGISTRY } from "../../tasks/registry.server";
import { TASK_STATUSES } from "../../tasks/task-types";
import { resultSummary } from "./task-item";
import { NAMED_TASK_TYPES, startFailureText, taskLabel, taskStatusText } from "./task-text";

describe("tasks in words", () => {
  it("names every registered task type and every status, in English and German", () => {
    expect([...TASK_REGISTRY.keys()].sort()).toEqual([...NAMED_TASK_TYPES].sort());
    for (const language of ["en", "de"]) {
      const t = tFor(language);
      for (const type of NAMED_TASK_TYPES) expect(taskLabel(t, type)).not.toBe(type);
      for (const status of TASK_STATUSES) expect(taskStatusText(t, status)).toBeTruthy();
    }
    expect(taskLabel(tFor("de"), "report.generate")).toBe("Systembericht");
    expect(taskLabel(tFor("de"), "something.new")).toBe("something.new");
  });

  it("says why a task did not start, the server's English reason translated", () => {
    const de = tFor("de");
    expect(startFailureText(de, "users.export", { reason: "unreachable" })).toBe(
      "Der Server ist nicht erreichbar.",
    );
    expect(
      startFailureText(de, "users.export", {
        reason: "refused",
        status: 429,
        code: "too_many_tasks",
        limit: 5,
      }),
    ).toContain("5 wartende oder laufende Aufgaben");
    expect(
      startFailureText(tFor("en"), "report.generate", {
        reason: "refused",
        status: 400,
        message: "The body must be JSON: {type, payload}.",
      }),
    ).toBe("Could not start System report: The body must be JSON: {type, payload}.");
  });

  it("sums up a result with numbers in the page's language", () => {
    expect(resultSummary(tFor("en"), "en", "report.generate", { users: 1234, roles: 1 })).toBe(
      "1,234 users · 1 role",
    );
    expect(resultSummary(tFor("de"), "de", "users.export", { rows: 1234 })).toBe("1.234 Zeilen");
  });
});
