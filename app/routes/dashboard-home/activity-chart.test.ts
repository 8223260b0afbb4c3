import { describe, expect, it } from "vitest";
import { yTicks } from "./activity-chart";

describe("the chart's y axis", () => {
  it("counts in ones up to 4, then in round steps that reach the largest value", () => {
    expect(yTicks(1)).toEqual([0, 1]);
    expect(yTicks(3)).toEqual([0, 1, 2, 3]);
    expect(yTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(yTicks(17)).toEqual([0, 5, 10, 15, 20]);
    expect(yTicks(1234)).toEqual([0, 500, 1000, 1500]);
    for (const max of [5, 9, 40, 99, 101, 999, 123_456]) {
      const ticks = yTicks(max);
      expect(ticks.at(-1)!, String(max)).toBeGreaterThanOrEqual(max);
      expect(ticks.length, String(max)).toBeLessThanOrEqual(6);
    }
  });
});
