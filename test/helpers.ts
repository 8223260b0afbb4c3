import type { RouterContextProvider } from "react-router";
import { invalidateRoles } from "../app/access/role-cache.server";
import { startSession } from "../app/auth/session.server";
import { db } from "../app/db.server";
import { createRequestContext } from "../app/server/lifecycle.server";
import { seed } from "../app/server/seed.server";
import { migrateToLatest } from "../db/migrate";
import { createUser as createUserIn, type NewUser } from "./support/users";

export const ORIGIN = "http://localhost:3000";
export const PASSWORD = "correct horse battery";

/** Migrates and seeds this test file's fresh database. */
export async function setupDatabase() {
  await migrateToLatest(db());
  await seed(db(), {
    NODE_ENV: "test",
    SUPER_ADMIN_EMAIL: "root@example.test",
    SUPER_ADMIN_PASSWORD: PASSWORD,
  });
  invalidateRoles();
}

/** A verified, active user holding `roles`, in this test file's database (test/support/users.ts). */
export function createUser(opts: Omit<NewUser, "password"> = {}) {
  return createUserIn(db(), { ...opts, password: PASSWORD });
}

export function context(ip = "203.0.113.7"): RouterContextProvider {
  return createRequestContext({ ip });
}

/** A Cookie header for a fresh session of the user. */
export async function sessionCookieFor(userId: string): Promise<string> {
  const [setCookie] = await startSession(userId, { request: new Request(ORIGIN), context: context() });
  return setCookie!.split(";")[0]!;
}

/** A user with the given roles and a Cookie header that signs them in. */
export async function signedIn(roles: string[]) {
  const user = await createUser({ roles });
  return { ...user, cookie: await sessionCookieFor(user.id) };
}

type RequestInit2 = { method?: string; cookie?: string; body?: BodyInit; headers?: Record<string, string> };

export function request(path: string, init: RequestInit2 = {}): Request {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("Cookie", init.cookie);
  return new Request(ORIGIN + path, { method: init.method ?? "GET", headers, body: init.body });
}

export function form(values: Record<string, string>): URLSearchParams {
  return new URLSearchParams(values);
}

export type Outcome = { status: number; headers: Headers; body: unknown; thrown: boolean };

/** Runs a loader/action and normalises what it returned or threw (Response or data()) into one shape. */
export async function run(fn: () => unknown): Promise<Outcome> {
  let value: unknown;
  let thrown = false;
  try {
    value = await fn();
  } catch (error) {
    value = error;
    thrown = true;
  }
  if (value instanceof Response) {
    const text = await value.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: value.status, headers: value.headers, body, thrown };
  }
  if (value && typeof value === "object" && (value as { type?: string }).type === "DataWithResponseInit") {
    const d = value as unknown as { data: unknown; init: ResponseInit | null };
    return { status: d.init?.status ?? 200, headers: new Headers(d.init?.headers), body: d.data, thrown };
  }
  if (thrown) throw value;
  return { status: 200, headers: new Headers(), body: value, thrown };
}

/** A loader's/action's arguments as React Router passes them (`url`: the page's address, decision 027). */
export function args(req: Request, params: Record<string, string> = {}, ctx = context()) {
  return { request: req, url: new URL(req.url), params, context: ctx, pattern: "" } as never;
}
