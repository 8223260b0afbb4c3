import { z } from "zod";
import { emailField } from "./email-address";
import { parseCidrList } from "./http/cidr";

// `KEY=` in .env means "not set", not "set to the empty string".
const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const optionalText = () => z.preprocess(blankToUndefined, z.string().optional());

/** Production refuses to start with it. */
export const DEV_SESSION_SECRET = "dev-only-insecure-secret";

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().default("file:./data/app.db"),
  // Per instance; keep instances × size under max_connections.
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
  PORT: z.coerce.number().int().positive().default(3000),
  HOST: z.string().default("0.0.0.0"),
  BASE_URL: z.string().url().optional(),
  ALLOWED_HOSTS: optionalText(),
  SESSION_SECRET: z.string().min(1).default(DEV_SESSION_SECRET),
  SESSION_MAX_AGE_DAYS: z.coerce.number().positive().default(14),
  SUPER_ADMIN_EMAIL: emailField.default("admin@localhost.test"),
  SUPER_ADMIN_PASSWORD: z.string().optional(),
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  RATE_LIMIT_LOGIN_PER_IP: z.coerce.number().int().positive().default(10),
  // Per account AND address.
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().positive().default(5),
  // Per account over all addresses; past it, sign-in slows down instead of locking.
  RATE_LIMIT_LOGIN_FAILURES_PER_ACCOUNT_GLOBAL: z.coerce.number().int().positive().default(50),
  RATE_LIMIT_PUBLIC_FORMS_PER_IP: z.coerce.number().int().positive().default(5),
  RATE_LIMIT_API_TOKEN_PER_MINUTE: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_SCIM_PER_MINUTE: z.coerce.number().int().positive().default(1200),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Derived from SESSION_SECRET when unset.
  TASK_WEBHOOK_SECRET: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.string().startsWith("whsec_").optional(),
  ),
  TASK_DEMO_DURATION_MS: z.coerce.number().int().min(0).max(60_000).default(15_000),
  TASK_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  // Kept below TASK_CONCURRENCY, so one account alone never occupies every running slot.
  TASK_MAX_OPEN_PER_USER: z.coerce.number().int().min(1).default(3),
  TASK_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  TASK_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(8_000),
  // Unset: 4000 in production, 0 otherwise (docs/operations.md, "Draining").
  DRAIN_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  // Past it the process exits 1.
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().optional(),
  TASK_WORKER: z.enum(["in-app", "separate"]).default("in-app"),
  // Where runners post completions when BASE_URL is not reachable from them (a container network).
  TASK_WEBHOOK_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/ }).optional()),
  TASK_HEARTBEAT_MS: z.coerce.number().int().min(100).default(2_000),
  // Fallbacks only: a value saved in Settings wins.
  MAIL_API_KEY: optionalText(),
  MAIL_API_URL: z.preprocess(blankToUndefined, z.string().url().optional()),
  EMAIL_FROM: optionalText(),
  APP_NAME: optionalText(),
  SIGN_IN_ALERTS: optionalText(),
  PASSWORD_BREACH_CHECK: optionalText(),
  SESSION_IDLE_MINUTES: optionalText(),
  // The range API of breached passwords: GET URL + the first 5 hex of a password's SHA-1.
  PWNED_PASSWORDS_URL: z.preprocess(
    blankToUndefined,
    z.string().url().default("https://api.pwnedpasswords.com/range/"),
  ),
  REGISTRATION: z.preprocess(blankToUndefined, z.enum(["open", "closed"]).optional()),
  REGISTRATION_ROLE: optionalText(),
  AUDIT_RETENTION_DAYS: optionalText(),
  // A comma-separated list rotates it: the first signs, all verify.
  AUDIT_SIGNING_KEY: optionalText(),
  SETTINGS_ENCRYPTION_KEY: optionalText(),
  // Main port with this bearer token, and/or 127.0.0.1:METRICS_PORT without one; neither: none served.
  METRICS_TOKEN: z.preprocess(
    blankToUndefined,
    z.string().min(16, "METRICS_TOKEN must be at least 16 characters long").optional(),
  ),
  METRICS_PORT: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(65_535).optional()),
  // Comma-separated CIDRs admins' typed addresses may still reach (app/http/outbound.server.ts).
  OUTBOUND_ALLOW_PRIVATE: optionalText().superRefine((value, ctx) => {
    try {
      parseCidrList(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `OUTBOUND_ALLOW_PRIVATE: ${(error as Error).message}` });
    }
  }),
});

/** A balancer checking /readyz every second takes an instance out after ~3 s; 4 s leaves a margin. */
export function drainMs(e: Pick<Env, "DRAIN_MS" | "NODE_ENV"> = env()): number {
  return e.DRAIN_MS ?? (e.NODE_ENV === "production" ? 4_000 : 0);
}

export const LISTENER_CLOSE_MS = 5_000;

export function shutdownGraceMs(e: Env = env()): number {
  return e.SHUTDOWN_GRACE_MS ?? drainMs(e) + e.TASK_SHUTDOWN_GRACE_MS + LISTENER_CLOSE_MS + 5_000;
}

const checked = schema.superRefine((e, ctx) => {
  if (e.SHUTDOWN_GRACE_MS !== undefined && e.SHUTDOWN_GRACE_MS <= drainMs(e) + e.TASK_SHUTDOWN_GRACE_MS)
    ctx.addIssue({
      code: "custom",
      path: ["SHUTDOWN_GRACE_MS"],
      message: `SHUTDOWN_GRACE_MS must exceed the drain (${drainMs(e)} ms) plus TASK_SHUTDOWN_GRACE_MS (${e.TASK_SHUTDOWN_GRACE_MS} ms)`,
    });
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

function withoutBlanks(source: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(source))
    if (value !== undefined && value.trim() !== "") out[key] = value;
  return out;
}

export function env(): Env {
  if (!cached) cached = checked.parse(withoutBlanks(process.env));
  return cached;
}

export function resetEnvCache() {
  cached = undefined;
}

export function baseUrl(): string {
  const e = env();
  return (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
}

export function sessionSecrets(): string[] {
  return env()
    .SESSION_SECRET.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Production assumes https unless told otherwise. */
export function secureCookies(): boolean {
  const e = env();
  if (e.BASE_URL) return e.BASE_URL.startsWith("https://");
  return e.NODE_ENV === "production";
}
