import { afterEach, describe, expect, it } from "vitest";
import { drainMs, env, resetEnvCache, shutdownGraceMs } from "./env.server";
import { webhookUrl } from "./tasks/delivery.server";

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

  it("posts task completions to BASE_URL's webhook, or to TASK_WEBHOOK_URL when set (a container network)", () => {
    process.env.BASE_URL = "https://admin.example.com";
    resetEnvCache();
    expect(webhookUrl()).toBe("https://admin.example.com/api/webhooks/tasks");
    process.env.TASK_WEBHOOK_URL = "http://haproxy:8080/api/webhooks/tasks";
    resetEnvCache();
    expect(webhookUrl()).toBe("http://haproxy:8080/api/webhooks/tasks");
    process.env.TASK_WEBHOOK_URL = "haproxy:8080";
    resetEnvCache();
    expect(() => env()).toThrow(/TASK_WEBHOOK_URL/);
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

  it("drains 4 s in production and not at all elsewhere, and bounds the stop above drain plus task grace", () => {
    const read = (vars: Record<string, string>) => {
      for (const key of ["NODE_ENV", "DRAIN_MS", "SHUTDOWN_GRACE_MS", "TASK_SHUTDOWN_GRACE_MS"])
        delete process.env[key];
      Object.assign(process.env, vars);
      resetEnvCache();
      return env();
    };
    expect(drainMs(read({ NODE_ENV: "production" }))).toBe(4_000);
    expect(shutdownGraceMs(read({ NODE_ENV: "production" }))).toBe(4_000 + 8_000 + 10_000);
    expect(drainMs(read({ NODE_ENV: "development" }))).toBe(0);
    expect(drainMs(read({ NODE_ENV: "development", DRAIN_MS: "1500" }))).toBe(1_500);
    expect(shutdownGraceMs(read({ NODE_ENV: "production", SHUTDOWN_GRACE_MS: "30000" }))).toBe(30_000);
    expect(() => read({ NODE_ENV: "production", SHUTDOWN_GRACE_MS: "12000" })).toThrow(
      /SHUTDOWN_GRACE_MS must exceed/,
    );
    expect(() =>
      read({
        NODE_ENV: "production",
        DRAIN_MS: "0",
        TASK_SHUTDOWN_GRACE_MS: "1000",
        SHUTDOWN_GRACE_MS: "2000",
      }),
    ).not.toThrow();
  });
});
