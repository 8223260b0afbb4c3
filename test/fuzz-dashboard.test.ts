import { describe } from "vitest";
import { fuzzTargets, startFuzzApp } from "./fuzz/harness";

// The dashboard's actions but the Settings page's, fuzzed as test/fuzz.test.ts describes.
startFuzzApp();

describe("fuzz: hostile input to every route", () => {
  fuzzTargets("dashboard");
});
