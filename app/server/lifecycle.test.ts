import { afterEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "../env.server";
import { lifecycle } from "./lifecycle.server";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetEnvCache();
});

describe("production start", () => {
  it("refuses the development SESSION_SECRET", () => {
    process.env.NODE_ENV = "production";
    delete process.env.SESSION_SECRET;
    resetEnvCache();
    expect(() => lifecycle.start()).toThrow(/SESSION_SECRET/);
    process.env.SESSION_SECRET = "dev-only-insecure-secret";
    resetEnvCache();
    expect(() => lifecycle.start()).toThrow(/SESSION_SECRET/);
  });
});
