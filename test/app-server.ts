/**
 * The whole app behind one function, for tests that must go through the real request pipeline:
 * route matching, root and route middleware (CSRF, session, access gate), `.data` requests with
 * `?_routes=`, actions, resource routes and the error boundaries, exactly as server.ts runs them,
 * minus the node:http pipeline and the socket.
 *
 *   const app = await startApp();            // in beforeAll, after setupDatabase()
 *   const res = await app.fetch("/dashboard/logs.data?_routes=routes%2Fdashboard.logs", { cookie });
 *   app.routes                               // every route of app/routes.ts with its full path
 *   await app.module<typeof import("../app/access/role-cache.server")>("app/access/role-cache.server.ts")
 *
 * The app is built from the test's own modules (test/app-build.ts): it needs no production build
 * (`npm test` may run vitest before `react-router build`) and no Vite server, and it shares the
 * test file's module instances, caches and database handle. `startApp({ separateInstance: true })`
 * loads a second copy of every app module beside the test's, as a production server.ts bundles
 * one beside the build's: both open the same database (DATABASE_URL), in-process caches are
 * separate. After changing roles or permissions behind the app's back, call `app.invalidateCaches()`.
 * Requests are answered in "production" mode, so server errors are sanitised as in production.
 */
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from "react-router";
import { vi } from "vitest";
import { importFromRoot, loadServerBuild } from "./app-build";
import { ORIGIN } from "./helpers";

export type AppRoute = {
  id: string;
  parentId: string | undefined;
  /** The full URL path, "/" joined from the parents (":id" params left in). */
  path: string;
  index: boolean;
  hasLoader: boolean;
  hasAction: boolean;
  /** A route without a component answers with its own Response (the /api routes). */
  isResource: boolean;
};

type AppRequestInit = {
  method?: string;
  cookie?: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** The client IP the socket would give. */
  ip?: string;
};

export type AppServer = {
  /**
   * Answers one request; `path` is relative to ORIGIN. A non-GET without Sec-Fetch-Site or Origin
   * gets both as a same-origin browser would send them (pass either to test other origins).
   */
  fetch(path: string, init?: AppRequestInit): Promise<Response>;
  /**
   * Answers a Request as built by the caller (no headers added). `ip`, or the request info object
   * as server.ts's pipeline passes it (its route label is filled in by the root middleware).
   */
  handle(request: Request, ip?: string | { ip: string; route?: string }): Promise<Response>;
  routes: AppRoute[];
  /** A module from the app's own instance, by path from the project root. */
  module<T>(file: string): Promise<T>;
  /** Drops the app instance's role and menu caches. */
  invalidateCaches(): Promise<void>;
  close(): Promise<void>;
};

type AppEntry = { createRequestContext(info: { ip: string; route?: string }): RouterContextProvider };

function fullPaths(build: ServerBuild): AppRoute[] {
  const routes = Object.values(build.routes).filter((r) => r !== undefined);
  const byId = new Map(routes.map((r) => [r.id, r]));
  const pathOf = (id: string | undefined): string => {
    const route = id ? byId.get(id) : undefined;
    if (!route) return "";
    const own = route.path ? `/${route.path}` : "";
    return pathOf(route.parentId) + own;
  };
  return routes.map((r) => ({
    id: r.id,
    parentId: r.parentId,
    path: pathOf(r.id) || "/",
    index: r.index === true,
    hasLoader: typeof r.module.loader === "function",
    hasAction: typeof r.module.action === "function",
    isResource: typeof r.module.default !== "function",
  }));
}

type Closer = { stopSystemBus(): Promise<void>; closeDb(): Promise<void> };

async function closers(): Promise<Closer> {
  const [bus, dbModule] = await Promise.all([
    importFromRoot<{ stopSystemBus(): Promise<void> }>("app/events/bus.server.ts"),
    importFromRoot<{ closeDb(): Promise<void> }>("app/db.server.ts"),
  ]);
  return { stopSystemBus: bus.stopSystemBus, closeDb: dbModule.closeDb };
}

export async function startApp(options: { separateInstance?: boolean } = {}): Promise<AppServer> {
  // The test's own instance is closed by test/setup-db.ts; a second one closes itself and, as the
  // registry then hands out the new copies only, the test's instance too.
  const own = options.separateInstance ? await closers() : undefined;
  if (options.separateInstance) vi.resetModules();
  const build = await loadServerBuild();
  const entry = build.entry.module as unknown as AppEntry;
  const handler = createRequestHandler(build, "production");
  const module = importFromRoot;

  const handle = (request: Request, ip: string | { ip: string; route?: string } = "203.0.113.9") =>
    handler(request, entry.createRequestContext(typeof ip === "string" ? { ip } : ip) as never);

  return {
    routes: fullPaths(build),
    handle,
    fetch(path, init = {}) {
      const method = init.method ?? "GET";
      const headers = new Headers(init.headers);
      if (init.cookie) headers.set("Cookie", init.cookie);
      const browserHeaders = headers.has("Sec-Fetch-Site") || headers.has("Origin");
      if (method !== "GET" && method !== "HEAD" && !browserHeaders) {
        headers.set("Sec-Fetch-Site", "same-origin");
        headers.set("Origin", ORIGIN);
      }
      return handle(new Request(ORIGIN + path, { method, headers, body: init.body }), init.ip);
    },
    module,
    async invalidateCaches() {
      const roles = await module<{ invalidateRoles(): void }>("app/access/role-cache.server.ts");
      const menu = await module<{ invalidateMenu(): void }>("app/access/menu.server.ts");
      roles.invalidateRoles();
      menu.invalidateMenu();
    },
    async close() {
      if (!own) return;
      for (const instance of [await closers(), own]) {
        await instance.stopSystemBus();
        await instance.closeDb();
      }
    },
  };
}
