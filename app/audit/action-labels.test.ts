import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_LABELS, AUDIT_ACTIONS, actionLabel } from "./actions";

const APP = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Every action name a module that writes audit rows puts under `action:` (a literal, or each
 * branch of a ternary), read from the source so a new audit call cannot slip by without a label.
 */
function writtenActions(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(APP)) {
    const text = readFileSync(file, "utf8");
    if (!/\baudit\(/.test(text)) continue;
    for (const match of text.matchAll(/\baction:\s*([^,}]+)/g)) {
      for (const literal of match[1]!.matchAll(/["'`]([a-z_]+(?:\.[a-z_]+)+)["'`]/g))
        found.set(literal[1]!, relative(APP, file));
    }
  }
  return found;
}

describe("audit action labels", () => {
  it("label every action the code writes", () => {
    const written = writtenActions();
    // The scan itself works: it finds the sign-in, both branches of a ternary, a route's own row.
    expect(written.has("auth.login.succeeded")).toBe(true);
    expect(written.has("user.disable") && written.has("user.enable")).toBe(true);
    expect(written.has("mail.test")).toBe(true);
    const missing = [...written].filter(([action]) => !(action in ACTION_LABELS));
    expect(missing, "actions written without a label in app/audit/actions.ts").toEqual([]);
  });

  it("are words for people, one per action, none repeated", () => {
    for (const action of AUDIT_ACTIONS) {
      const label = actionLabel(action);
      expect(label, action).not.toBe(action);
      expect(label, action).toMatch(/^[A-Z][^._]*$/);
    }
    expect(new Set(Object.values(ACTION_LABELS)).size).toBe(AUDIT_ACTIONS.length);
    expect(actionLabel("auth.login.succeeded")).toBe("Signed in");
  });
});
