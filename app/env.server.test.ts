import { afterEach, describe, expect, it } from "vitest";
import { env, resetEnvCache } from "./env.server";

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  resetEnvCache();
});

describe("env", () => {
  it("treats an empty (or blank) variable as unset, for every variable", () => {
    Object.assign(process.env, {
      TASK_DEMO_DURATION_MS: "",
      PORT: " ",
      TASK_CONCURRENCY: "",
      SESSION_MAX_AGE_DAYS: "",
      SUPER_ADMIN_EMAIL: "",
      LOG_LEVEL: "",
      TASK_WORKER: "",
      BASE_URL: "",
      APP_NAME: "",
    });
    resetEnvCache();
    const e = env();
    expect(e.TASK_DEMO_DURATION_MS).toBe(15_000);
    expect(e.PORT).toBe(3000);
    expect(e.TASK_CONCURRENCY).toBe(4);
    expect(e.SESSION_MAX_AGE_DAYS).toBe(14);
    expect(e.SUPER_ADMIN_EMAIL).toBe("admin@localhost.test");
    expect(e.LOG_LEVEL).toBe("info");
    expect(e.TASK_WORKER).toBe("in-app");
    expect(e.BASE_URL).toBeUndefined();
    expect(e.APP_NAME).toBeUndefined();
  });

  it("still refuses a value that is set but wrong", () => {
    process.env.TASK_DEMO_DURATION_MS = "soon";
    resetEnvCache();
    expect(() => env()).toThrow();
    process.env.TASK_DEMO_DURATION_MS = "0";
    process.env.SUPER_ADMIN_EMAIL = "not-an-email";
    resetEnvCache();
    expect(() => env()).toThrow(/SUPER_ADMIN_EMAIL/);
  });
});
