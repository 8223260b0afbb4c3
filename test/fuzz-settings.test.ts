import { describe } from "vitest";
import { fuzzTargets, startFuzzApp } from "./fuzz/harness";

// The Settings page's actions (its SSO tab's too), fuzzed as test/fuzz.test.ts describes.
startFuzzApp();

describe("fuzz: hostile input to every route", () => {
  fuzzTargets("settings");
});
