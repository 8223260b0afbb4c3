import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Plugin, ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routes from "../app/routes";
import { onPostgres } from "./postgres-schema";

// What the browser loads in development, walked the way it asks for it: the client entry and
// every route module as the client environment serves them (React Router strips loaders, actions
// and middleware and the imports only they use), then every app module they import. Two promises
// rest on it (docs/extending.md, "Browser-side details"):
// - no server-only code is reachable from a browser entry (a `.server` module, `db/`, or a package
//   that only runs in Node);
// - every package the browser imports is pre-bundled up front (`optimizeDeps.include` in
//   vite.config.ts). Dependency discovery is off there, so the first page view of a fresh clone
//   never re-optimizes, reloads and answers "504 (Outdated Optimize Dep)"; a client package
//   missing from the list would be served unbundled, so it fails here first.

const root = new URL("..", import.meta.url).pathname;
const cacheDir = mkdtempSync(join(tmpdir(), "client-graph-vite-"));

/** Packages that must never reach the browser (they need Node, a native module, or secrets). */
const SERVER_ONLY = [
  "better-sqlite3",
  "pg",
  "kysely",
  "prom-client",
  "pino",
  "@node-rs/argon2",
  "@epic-web/totp",
  "remix-i18next/server",
  "@simplewebauthn/server",
  "openid-client",
  "postmark",
  "graphile-worker",
  "rate-limiter-flexible",
  "standardwebhooks",
  "qrcode",
];

type RouteEntry = { file: string; children?: RouteEntry[] };
const routeFiles = (list: RouteEntry[]): string[] =>
  list.flatMap((r) => [`/app/${r.file}`, ...routeFiles(r.children ?? [])]);

/** Bare specifiers the client environment resolves for an importer inside the app, with one importer each. */
const bareImports = new Map<string, string>();
const recordBareImports: Plugin = {
  name: "test:record-bare-imports",
  enforce: "pre",
  resolveId(id, importer) {
    if (this.environment.name !== "client" || !importer || importer.includes("/node_modules/")) return null;
    if (!importer.startsWith(root)) return null;
    if (/^[./\0]|^virtual:|^[a-z]+:/.test(id)) return null;
    if (!bareImports.has(id)) bareImports.set(id, relative(root, importer));
    return null;
  },
};

let vite: ViteDevServer;
const visited = new Map<string, string>();

beforeAll(async () => {
  const { createServer } = await import("vite");
  vite = await createServer({
    configFile: join(root, "vite.config.ts"),
    root,
    cacheDir,
    appType: "custom",
    logLevel: "silent",
    plugins: [recordBareImports],
    server: { middlewareMode: true, hmr: false, watch: null, preTransformRequests: false },
  });
  const client = vite.environments.client;
  const queue = ["/app/entry.client.tsx", "/app/root.tsx", ...routeFiles(routes as RouteEntry[])];
  for (const url of queue) visited.set(url, "(entry)");
  while (queue.length > 0) {
    const url = queue.shift()!;
    await client.transformRequest(url);
    // A stylesheet's "imports" are the files Tailwind scans for class names, not code the browser loads.
    if (url.endsWith(".css")) continue;
    // The import analysis recorded what the served code imports.
    const node = await client.moduleGraph.getModuleByUrl(url);
    for (const imported of node?.importedModules ?? []) {
      // App modules only: packages and Vite's own virtual modules end the walk.
      const path = imported.url.replace(/\?.*$/, "");
      if (!imported.file?.startsWith(root) || imported.file.includes("/node_modules/")) continue;
      if (!visited.has(path)) {
        visited.set(path, url);
        queue.push(path);
      }
    }
  }
}, 120_000);

afterAll(async () => {
  await vite?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

// The graph is the same whatever the database: SQLite's pass walks it, PostgreSQL's need not (14 s).
describe.skipIf(onPostgres)("the browser's module graph in development", () => {
  it("reaches no server-only module", () => {
    const server = [...visited].filter(([path]) => /\.server(\.|$)|^\/db\/|^\/server\.ts$/.test(path));
    expect(server.map(([path, from]) => `${path} <= ${from}`)).toEqual([]);
    expect(visited.size).toBeGreaterThan(50);
  });

  it("imports no server-only package", () => {
    const found = [...bareImports].filter(([id]) =>
      SERVER_ONLY.some((pkg) => id === pkg || id.startsWith(`${pkg}/`)),
    );
    expect(found.map(([id, from]) => `${id} <= ${from}`)).toEqual([]);
  });

  it("pre-bundles every package it imports, with discovery off (no re-optimizing reload on a first run)", () => {
    const { include = [], noDiscovery } = vite.environments.client.config.optimizeDeps;
    const missing = [...bareImports].filter(([id]) => !include.includes(id));
    expect(
      missing.map(
        ([id, from]) => `${id} (imported by ${from}): add it to optimizeDeps.include in vite.config.ts`,
      ),
    ).toEqual([]);
    expect(bareImports.size).toBeGreaterThan(5);
    expect(noDiscovery).toBe(true);
  });
});
