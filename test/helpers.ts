import { copyFileSync, existsSync } from "node:fs";
import { sql } from "kysely";
import type { RouterContextProvider } from "react-router";
import { inject } from "vitest";
import { invalidateRoles } from "../app/access/role-cache.server";
import { startSession } from "../app/auth/session.server";
import { db } from "../app/db.server";
import { createRequestContext } from "../app/server/lifecycle.server";
import { seed } from "../app/server/seed.server";
import { sqliteHandleOf, sqlitePath } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { PASSWORD, SEED_ENV } from "./database-template";
import { copyTemplateInto } from "./postgres-schema";
import { createUser as createUserIn, type NewUser, rememberPasswordHash } from "./support/users";

export const ORIGIN = "http://localhost:3000";
export { PASSWORD };

/**
 * This test file's database, migrated and seeded: a copy of the run's template
 * (test/database-template.ts), or, when the file opened or migrated its database before, the
 * migrations and the seed run on it.
 */
export async function setupDatabase() {
  const template = inject("databaseTemplate");
  rememberPasswordHash(PASSWORD, template.passwordHash);
  if (!(await copiedTemplate())) {
    await migrateToLatest(db());
    await seed(db(), SEED_ENV);
  }
  invalidateRoles();
}

async function copiedTemplate(): Promise<boolean> {
  const template = inject("databaseTemplate");
  const url = process.env.DATABASE_URL!;
  if (template.engine === "sqlite") {
    // Only before the app opens the file (better-sqlite3 creates it then).
    const file = sqlitePath(url);
    if (existsSync(file)) return false;
    copyFileSync(template.file, file);
    // createDb analyses the tables of the file it opens (db/connection.ts), which a migrated
    // copy has and an empty new file had not: drop those statistics again, so that the planner
    // (and the query plan tests) start from what a migrated and seeded fresh file gives.
    const sqlite = sqliteHandleOf(db())!;
    if (sqlite.prepare("select 1 from sqlite_schema where name = 'sqlite_stat1'").get()) {
      sqlite.exec("delete from sqlite_stat1; analyze sqlite_schema");
    }
    return true;
  }
  const schema = new URL(url).searchParams.get("schema");
  return template.script !== null && schema !== null && copyTemplateInto(schema, template.script);
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

/**
 * The tables of this test file's own database. Not Kysely's introspection: on PostgreSQL it reads
 * every schema of the server, and fails when another file's teardown drops one meanwhile.
 */
export async function ownTables(): Promise<string[]> {
  const { rows } = process.env.DATABASE_URL?.startsWith("postgres")
    ? await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db())
    : await sql<{ name: string }>`select name from sqlite_master where type = 'table'
        and name not like 'sqlite_%'`.execute(db());
  return rows.map((r) => r.name);
}

/** Every column of every table of this test file's own database, in order (see ownTables). */
export async function ownColumns(): Promise<Map<string, string[]>> {
  const { rows } = process.env.DATABASE_URL?.startsWith("postgres")
    ? await sql<{
        t: string;
        c: string;
      }>`select table_name as t, column_name as c from information_schema.columns
        where table_schema = current_schema() order by table_name, ordinal_position`.execute(db())
    : await sql<{ t: string; c: string }>`select m.name as t, p.name as c from sqlite_master m
        join pragma_table_info(m.name) p where m.type = 'table' and m.name not like 'sqlite_%'
        order by m.name, p.cid`.execute(db());
  const columns = new Map<string, string[]>();
  for (const { t, c } of rows) columns.set(t, [...(columns.get(t) ?? []), c]);
  return columns;
}
