import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The layering of docs/architecture.md, checked on every import (type imports too) of app/ and db/.
// Tests are left out: a test may reach into any layer it exercises.

const ROOT = join(import.meta.dirname, "..");

const DOMAINS = [
  "access",
  "auth",
  "mail",
  "notifications",
  "overview",
  "settings",
  "tasks",
  "teams",
  "users",
];
const INFRASTRUCTURE = [
  "db/",
  "app/db.server.ts",
  "app/env.server.ts",
  "app/config.ts",
  "app/domain-errors.ts",
  "app/email-address.ts",
  "app/http/",
  "app/events/",
  "app/audit/",
  "app/security/",
  "app/metrics/",
];

type Layer = "infrastructure" | "domain" | "components" | "routes" | "composition" | "other";

function layerOf(file: string): Layer {
  if (INFRASTRUCTURE.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p)))
    return "infrastructure";
  const folder = /^app\/([^/]+)\//.exec(file)?.[1];
  if (folder && DOMAINS.includes(folder)) return "domain";
  if (file.startsWith("app/components/")) return "components";
  if (file.startsWith("app/routes/")) return "routes";
  if (
    file.startsWith("app/server/") ||
    ["app/root.tsx", "app/entry.server.tsx", "app/routes.ts"].includes(file)
  )
    return "composition";
  return "other";
}

/** Why `from` may not import `to`, or undefined when it may. */
function violation(from: string, to: string): string | undefined {
  const source = layerOf(from);
  const target = layerOf(to);
  if (to.startsWith("app/routes/") && !from.startsWith("app/routes/") && from !== "app/routes.ts")
    return "nothing but the route table imports a route module";
  if (source === "infrastructure" && !["infrastructure", "other"].includes(target))
    return `infrastructure imports no ${target} module`;
  if (source === "domain" && ["components", "routes", "composition"].includes(target))
    return `a domain imports no ${target} module`;
  if (source === "components" && /\.server(\.tsx?)?$/.test(to)) return "components import no *.server module";
  return undefined;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Relative imports only: packages are outside the layering. Generated `+types` files are skipped. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!fileName.startsWith(".") || fileName.includes("/+types/")) continue;
    const base = normalize(join(dirname(file), fileName));
    const hit = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find(
      (c) => existsSync(join(ROOT, c)) && statSync(join(ROOT, c)).isFile(),
    );
    found.push(hit ?? base);
  }
  return found;
}

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of [...sourceFiles("app"), ...sourceFiles("db")]) {
    edges.set(file, importsOf(file, readFileSync(join(ROOT, file), "utf8")));
  }
  return edges;
}

/** Every cycle's smallest member set (Tarjan's strongly connected components of size > 1, or a self-import). */
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
      if (!edges.has(w)) continue;
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
  const edges = graph();

  it("scans the source tree", () => {
    expect(edges.size).toBeGreaterThan(150);
    expect(layerOf("app/http/form.server.ts")).toBe("infrastructure");
    expect(layerOf("app/users/users.server.ts")).toBe("domain");
  });

  it("resolves every relative import to a file", () => {
    const missing = [...edges].flatMap(([from, tos]) =>
      tos.filter((to) => !existsSync(join(ROOT, to))).map((to) => `${from} -> ${to}`),
    );
    expect(missing).toEqual([]);
  });

  it("infrastructure imports no domain, domains no components or routes, components no *.server", () => {
    const broken = [...edges].flatMap(([from, tos]) =>
      tos.flatMap((to) => {
        const why = violation(from, to);
        return why ? [`${from} -> ${to}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it("has no import cycles", () => {
    expect(cycles(edges)).toEqual([]);
  });

  it("would catch a violation and a cycle", () => {
    expect(violation("app/http/form.server.ts", "app/users/users.server.ts")).toMatch(/infrastructure/);
    expect(violation("app/users/users.server.ts", "app/components/icons.ts")).toMatch(/domain/);
    expect(violation("app/components/sidebar.tsx", "app/access/menu.server.ts")).toMatch(/\.server/);
    expect(violation("app/tasks/runner.server.ts", "app/routes/api.tasks.ts")).toMatch(/route/);
    expect(violation("app/routes/dashboard.tsx", "app/users/users.server.ts")).toBeUndefined();
    const looped = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
      ["c", ["a"]],
    ]);
    expect(cycles(looped)).toEqual([["a", "b"]]);
  });
});
