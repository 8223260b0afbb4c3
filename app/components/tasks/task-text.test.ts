import { describe, expect, it } from "vitest";
import { tFor } from "../../i18n/i18n.server";
import { TASK_REGISTRY } from "../../tasks/registry.server";
import { TASK_STATUSES } from "../../tasks/task-types";
import { taskInputSummary } from "./task-input";
import { resultSummary } from "./task-item";
import { NAMED_TASK_TYPES, startFailureText, taskDownload, taskLabel, taskStatusText } from "./task-text";

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

  it("says what a bulk change did, and why people were refused, in the reader's language", () => {
    const result = {
      matched: 1300,
      done: 1234,
      unchanged: 60,
      refused: 6,
      reasons: ["This user does not exist."],
      reasonMessages: [{ key: "users.notFound" }],
    };
    expect(resultSummary(tFor("en"), "en", "users.bulk", result)).toBe(
      "1,234 users changed · 60 already so · 6 refused: This user does not exist.",
    );
    expect(resultSummary(tFor("de"), "de", "users.bulk", { ...result, unchanged: 0, refused: 0 })).toBe(
      "1.234 Benutzer geändert",
    );
  });
});

describe("an audit export's filters in words", () => {
  const en = tFor("en");
  it("tells two exports apart by what they were asked for", () => {
    const all = taskInputSummary(en, "en", "audit.export", { actor: "", action: "", format: "csv" });
    const signIns = taskInputSummary(en, "en", "audit.export", {
      action: "auth.login.succeeded",
      actor: "ada@example.test",
      from: "2026-01-01",
      to: "2026-01-31",
      format: "jsonl",
    });
    expect(all).toBe("CSV · all entries");
    expect(signIns).toBe("JSON Lines · Signed in · actor “ada@example.test” · 1 Jan 2026 – 31 Jan 2026");
    expect(taskInputSummary(tFor("de"), "de", "audit.export", { target: "Ops", from: "2026-03-02" })).toBe(
      "CSV · Ziel „Ops“ · ab 02.03.2026",
    );
  });

  it("shows what a client stored without trusting its shape", () => {
    expect(taskInputSummary(en, "en", "audit.export", null)).toBe("CSV · all entries");
    expect(taskInputSummary(en, "en", "audit.export", ["x"])).toBe("CSV · all entries");
    expect(taskInputSummary(en, "en", "audit.export", { action: 5, actor: { a: 1 }, to: "nonsense" })).toBe(
      "CSV · until nonsense",
    );
    expect(taskInputSummary(en, "en", "audit.export", { actor: "x".repeat(300) })).toMatch(
      /^CSV · actor “x{39}…”$/,
    );
    expect(taskInputSummary(en, "en", "users.export", { format: "csv" })).toBeNull();
  });
});

describe("a finished task's file", () => {
  const en = tFor("en");
  const id = "0b7e2a8e-5d5c-4c55-9a51-2d0f5c9b1e11";
  const done = (result: unknown) => ({ status: "completed" as const, result });
  it("is a link to the app's own download route, named by its format", () => {
    expect(
      taskDownload(en, done({ downloadUrl: `/api/tasks/${id}/download`, filename: "audit.csv" })),
    ).toEqual({
      href: `/api/tasks/${id}/download`,
      label: "Download CSV",
    });
    expect(
      taskDownload(en, done({ downloadUrl: `/api/tasks/${id}/download`, filename: "a.jsonl" }))?.label,
    ).toBe("Download JSON Lines");
  });

  it("is no link for an unfinished task, or an address elsewhere", () => {
    expect(
      taskDownload(en, { status: "processing", result: { downloadUrl: `/api/tasks/${id}/download` } }),
    ).toBeNull();
    expect(taskDownload(en, done({ downloadUrl: "https://evil.example/x" }))).toBeNull();
    expect(taskDownload(en, done({ downloadUrl: "javascript:alert(1)" }))).toBeNull();
    expect(taskDownload(en, done(null))).toBeNull();
  });
});
