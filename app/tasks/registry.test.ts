import { describe, expect, it } from "vitest";
import { TASK_REGISTRY } from "./registry.server";

describe("task registry", () => {
  it("every task type says whether it is safe to run again (docs/extending.md)", () => {
    const declared = [...TASK_REGISTRY.values()].map((d) => [d.type, typeof d.rerunnable]);
    expect(declared.filter(([, kind]) => kind !== "boolean")).toEqual([]);
    // It sends mail: a second run would mail people twice.
    expect(TASK_REGISTRY.get("broadcast.email")?.rerunnable).toBe(false);
  });
});
