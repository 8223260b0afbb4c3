import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, normalize } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The layering of docs/architecture.md, checked on every import (type imports, re-exports and
// dynamic imports too) of every source file in the repository: every folder is scanned, every
// import is followed to the file it names (a JSON or CSS file too), every file must have a layer,
// and the graph may hold no cycle of imports that run (an `import type` is erased, so it closes none).

const ROOT = join(import.meta.dirname, "..");

/** Top-level entries that hold no source of ours: dependencies, generated and run-time output. */
const NOT_SOURCE = new Set([
  "node_modules",
  "build",
  "data",
  "public",
  "docs",
  "backups",
  "playwright-report",
]);
const SOURCE_FILE = /\.(c|m)?[jt]sx?$/;

/** The domains from the bottom up: each may import only those before it (docs/architecture.md). */
const DOMAIN_ORDER = [
  "access",
  "system-settings",
  "mail",
  "auth",
  "notifications",
  "overview",
  "teams",
  "users",
  "views",
  "directory",
  "tasks",
  "settings",
  // The API's description: it reads the request schemas of every domain above.
  "api-docs",
] as const;

const INFRASTRUCTURE = [
  "db/",
  "emails/",
  "app/db.server.ts",
  "app/env.server.ts",
  "app/config.ts",
  "app/domain-errors.ts",
  "app/email-address.ts",
  "app/zod-jitless.client.ts",
  "app/http/",
  "app/events/",
  "app/audit/",
  "app/webhooks/",
  "app/security/",
  "app/metrics/",
  "app/i18n/",
  "app/locales/",
];
const COMPOSITION = [
  "app/server/",
  "app/root.tsx",
  "app/entry.server.tsx",
  "app/entry.client.tsx",
  "app/routes.ts",
];

// From the bottom up; `rank` decides which layer may import which (see `violation`).
const LAYERS = [
  "infrastructure",
  "domain",
  "components",
  "routes",
  "composition",
  "entry points",
  "tooling",
  "tests",
] as const;
type Layer = (typeof LAYERS)[number];

const under = (file: string, prefixes: string[]) =>
  prefixes.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p));

/** The layer of a repository path, or undefined when none is given (the test fails on it). */
function layerOf(file: string): Layer | undefined {
  // The test runners' own configuration belongs with the tests it runs.
  if (
    /\.test\.[jt]sx?$/.test(file) ||
    /^(test|e2e)\//.test(file) ||
    /^(vitest|playwright)\.config\.ts$/.test(file)
  )
    return "tests";
  if (under(file, INFRASTRUCTURE)) return "infrastructure";
  if ((DOMAIN_ORDER as readonly string[]).includes(domainOf(file) ?? "")) return "domain";
  if (file.startsWith("app/components/") || file === "app/app.css") return "components";
  if (file.startsWith("app/routes/")) return "routes";
  if (under(file, COMPOSITION)) return "composition";
  if (file.startsWith("scripts/") || file === "server.ts") return "entry points";
  if (/^[^/]+\.config\.ts$/.test(file) || file.startsWith("bench/")) return "tooling";
  return undefined;
}

function domainOf(file: string): string | undefined {
  return /^app\/([^/]+)\//.exec(file)?.[1];
}

const rank = (layer: Layer) => LAYERS.indexOf(layer);

/** A route module: `app/routes/<name>.ts(x)`, or `app/routes/<name>/route.ts(x)` in a folder with its parts. */
const isRouteModule = (file: string) => /^app\/routes\/([^/]+|[^/]+\/route)\.tsx?$/.test(file);
/** The route folder a file sits in (`<name>` of `app/routes/<name>/…`), or undefined. */
const routeFolderOf = (file: string) => /^app\/routes\/([^/]+)\//.exec(file)?.[1];
/** A part of a route folder: what only that route, or the routes nested in it, use. */
const isRoutePart = (file: string) => routeFolderOf(file) !== undefined && !isRouteModule(file);
/** `app/routes/a.b/…` is in `a.b`'s folder or in a child route's (`a.b.c/`): the flat routes' naming. */
const inFolderOrChild = (file: string, folder: string) => {
  const own = routeFolderOf(file);
  return own === folder || own?.startsWith(`${folder}.`) === true;
};
const isServerModule = (file: string) => /\.server(\.[jt]sx?)?$/.test(file) || file.includes("/.server/");

/** Why `from` may not import `to` (`typeOnly`: by an `import type`), or undefined when it may. */
function violation(from: string, to: string, typeOnly = false): string | undefined {
  const source = layerOf(from);
  const target = layerOf(to);
  if (!source || !target) return "a file without a layer";
  if (source === "tests") return undefined;
  if (target === "tests") return "nothing but a test imports test code";
  // A part types its fetchers from its route's action; the route imports the part's component.
  if (isRouteModule(to) && isRoutePart(from) && routeFolderOf(from) === routeFolderOf(to))
    return typeOnly ? undefined : "a route's part imports only its route's types (import type)";
  if (isRouteModule(to) && !isRouteModule(from) && from !== "app/routes.ts")
    return "nothing but the route table imports a route module";
  if (isRoutePart(to) && !inFolderOrChild(from, routeFolderOf(to)!))
    return "a route folder's parts are its own and its child routes'";
  if (source === "components" && isServerModule(to)) return "components import no *.server module";
  // The root route is composition (it exports the root middleware); pages read its loader's type.
  if (source === "routes" && to === "app/root.tsx") return undefined;
  if (source === "domain" && target === "domain") {
    const a = DOMAIN_ORDER.indexOf(domainOf(from) as never);
    const b = DOMAIN_ORDER.indexOf(domainOf(to) as never);
    if (b > a)
      return `the ${domainOf(from)} domain imports no module of ${domainOf(to)}, which sits above it`;
    return undefined;
  }
  if (rank(target) > rank(source)) return `${source} imports no ${target} module`;
  return undefined;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue; // .git, .react-router (generated types), .ci
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!dir && (NOT_SOURCE.has(entry.name) || /^build-|^test-results/.test(entry.name))) continue;
      if (entry.name === "build" || entry.name === "node_modules") continue; // bench/stock/build
      sourceFiles(path, out);
    } else if (SOURCE_FILE.test(entry.name)) out.push(path);
  }
  return out;
}

const isFile = (path: string) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile();

type Import = { to: string; typeOnly: boolean };

/**
 * The module named by each `import type` and `export type … from` statement, once per statement.
 * `ts.preProcessFile` does not tell these apart, and only they are erased: under
 * `verbatimModuleSyntax` an `import { type X }` stays an import of the module.
 */
function typeOnlySpecifiers(text: string): string[] {
  const statement =
    /^\s*(?:import|export)\s+type\s+(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)\s+from\s+["']([^"']+)["']/gm;
  return [...text.matchAll(statement)].map((m) => m[1]!);
}

/**
 * Relative imports, each resolved to the repository file it names (`x` → `x.ts`, `x.tsx`,
 * `x/index.ts`; `x.js` → `x.ts`; a `?url` query dropped), and whether every import of it is an
 * `import type`. An import that names no file stays as written, and the test fails on it.
 * Packages are outside the layering. A route's own generated types (`./+types/<route>`, written by
 * `react-router typegen` outside the source tree) are the one import not followed; any other
 * `+types` import fails.
 */
function importsOf(file: string, text: string): Import[] {
  const typeOnly = typeOnlySpecifiers(text);
  const found = new Map<string, boolean>();
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const own = basename(file, extname(file));
    if (fileName === `./+types/${own}` && (file.startsWith("app/routes/") || file === "app/root.tsx"))
      continue;
    const base = normalize(join(dirname(file), fileName.replace(/\?.*$/, "")));
    const stem = base.replace(/\.(c|m)?js$/, "");
    const candidates = [base, `${base}.ts`, `${base}.tsx`, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`];
    const to = candidates.find(isFile) ?? base;
    // Each statement is one entry of preProcessFile's: an `import type` accounts for one of them.
    const at = typeOnly.indexOf(fileName);
    if (at >= 0) typeOnly.splice(at, 1);
    found.set(to, (found.get(to) ?? true) && at >= 0);
  }
  return [...found].map(([to, typeOnly]) => ({ to, typeOnly }));
}

/** Every scanned file with what it imports; imported files that were not scanned (JSON, CSS) join as leaves. */
function importGraph(): Map<string, Import[]> {
  const edges = new Map<string, Import[]>();
  for (const file of sourceFiles(""))
    edges.set(file, importsOf(file, readFileSync(join(ROOT, file), "utf8")));
  for (const targets of [...edges.values()])
    for (const { to } of targets) if (!edges.has(to)) edges.set(to, []);
  return edges;
}

/** The imports that run: `import type` statements are erased, so they close no loop. */
function runtimeEdges(edges: Map<string, Import[]>): Map<string, string[]> {
  return new Map(
    [...edges].map(([from, imports]) => [from, imports.filter((i) => !i.typeOnly).map((i) => i.to)]),
  );
}

/** Every cycle's member set (Tarjan's strongly connected components of size > 1, or a self-import). */
function cycles(edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("import direction (docs/architecture.md)", () => {
  const edges = importGraph();

  it("scans every folder of the repository", () => {
    const folders = new Set([...edges.keys()].map((f) => f.split("/")[0]));
    for (const folder of ["app", "db", "emails", "scripts", "server.ts", "test", "e2e", "bench"])
      expect(folders).toContain(folder);
    expect(edges.size).toBeGreaterThan(500);
  });

  it("resolves every relative import to a file", () => {
    const missing = [...edges].flatMap(([from, imports]) =>
      imports.filter(({ to }) => !isFile(to)).map(({ to }) => `${from} -> ${to}`),
    );
    expect(missing).toEqual([]);
  });

  it("gives every file a layer", () => {
    expect([...edges.keys()].filter((file) => !layerOf(file))).toEqual([]);
  });

  it("imports only in the documented direction", () => {
    const broken = [...edges].flatMap(([from, imports]) =>
      imports.flatMap(({ to, typeOnly }) => {
        const why = violation(from, to, typeOnly);
        return why ? [`${from} -> ${to}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("has no import cycles", () => {
    expect(cycles(runtimeEdges(edges))).toEqual([]);
  });

  it("would catch a violation, an unlayered file and a cycle", () => {
    expect(violation("app/i18n/i18n.server.ts", "app/auth/session.server.ts")).toMatch(/infrastructure/);
    expect(violation("app/http/form.server.ts", "app/users/users.server.ts")).toMatch(/infrastructure/);
    expect(violation("app/access/rules.server.ts", "app/auth/session.server.ts")).toMatch(/above/);
    expect(violation("app/auth/session.server.ts", "app/access/role-cache.server.ts")).toBeUndefined();
    expect(violation("app/users/users.server.ts", "app/components/icons.ts")).toMatch(/domain/);
    expect(violation("app/components/sidebar.tsx", "app/access/menu.server.ts")).toMatch(/\.server/);
    expect(violation("app/tasks/runner.server.ts", "app/routes/api.tasks.ts")).toMatch(/route/);
    expect(violation("app/auth/session.server.ts", "test/helpers.ts")).toMatch(/test/);
    expect(violation("app/routes/dashboard.tsx", "app/users/users.server.ts")).toBeUndefined();
    expect(layerOf("app/newfolder/thing.ts")).toBeUndefined();
    expect(violation("app/newfolder/thing.ts", "app/config.ts")).toMatch(/without a layer/);
    // The seven-module loop madge once found, type import included.
    const loop = [
      "app/auth/session.server.ts",
      "app/auth/api-tokens.server.ts",
      "app/access/rules.server.ts",
      "app/domain-errors.ts",
      "emails/email-texts.ts",
      "app/i18n/i18n.server.ts",
    ];
    const looped = new Map(loop.map((file, i) => [file, [loop[(i + 1) % loop.length]!]]));
    looped.set("app/root.tsx", ["app/auth/session.server.ts"]);
    expect(cycles(looped)).toEqual([[...loop].sort()]);
  });

  it("lets a route's parts import its types, and nothing else import a route module", () => {
    const page = "app/routes/dashboard.settings.profile/route.tsx";
    const part = "app/routes/dashboard.settings.profile/profile-section.tsx";
    const shared = "app/routes/dashboard.settings/use-settings-form.tsx";
    expect(violation(part, page, true)).toBeUndefined();
    expect(violation(part, page)).toMatch(/only its route's types/);
    expect(violation("app/components/sidebar.tsx", page)).toMatch(/route table/);
    expect(violation("app/components/sidebar.tsx", page, true)).toMatch(/route table/);
    expect(violation("app/routes/dashboard.settings.system/system-section.tsx", page, true)).toMatch(
      /route table/,
    );
    expect(violation("app/routes.ts", page)).toBeUndefined();
    // The layout's folder holds what its child routes share; nobody else takes a route's parts.
    expect(violation(page, part)).toBeUndefined();
    expect(violation(part, shared)).toBeUndefined();
    expect(violation("app/routes/dashboard.users.tsx", shared)).toMatch(/its own and its child/);
    expect(violation("app/routes/dashboard.settingsx/route.tsx", shared)).toMatch(/its own and its child/);
    expect(violation("app/components/sidebar.tsx", part)).toMatch(/its own and its child/);
  });

  it("tells an `import type` from an import that runs, and leaves the former out of the cycles", () => {
    const part = "app/routes/dashboard.settings.profile/profile-section.tsx";
    const page = "app/routes/dashboard.settings.profile/route.tsx";
    const typed = (text: string) => importsOf(part, text).map((i) => i.typeOnly);
    expect(typed('import type { action } from "./route";')).toEqual([true]);
    expect(typed('import type {\n  action,\n  loader,\n} from "./route";')).toEqual([true]);
    expect(typed('export type { action } from "./route";')).toEqual([true]);
    // Kept as an import of the module under verbatimModuleSyntax.
    expect(typed('import { type action } from "./route";')).toEqual([false]);
    expect(typed('import type { action } from "./route";\nimport { x } from "./route";')).toEqual([false]);
    const loop = new Map<string, Import[]>([
      [page, [{ to: part, typeOnly: false }]],
      [part, [{ to: page, typeOnly: true }]],
    ]);
    expect(cycles(runtimeEdges(loop))).toEqual([]);
    loop.set(part, [{ to: page, typeOnly: false }]);
    expect(cycles(runtimeEdges(loop))).toEqual([[page, part].sort()]);
  });
});
