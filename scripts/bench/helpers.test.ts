import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cacheKey } from "./cache-key";
import { parseSizes } from "./options";
import { END, readmeSection, replaceSection, START } from "./readme-table";
import {
  type BenchRun,
  curveTable,
  type EndpointFigures,
  flagsFor,
  markdownTables,
  sizeTable,
} from "./report";
import { latencyOf, percentile, ratio } from "./stats";

describe("percentile", () => {
  it("picks a measured value by nearest rank", () => {
    const samples = [5, 1, 4, 2, 3];
    expect(percentile(samples, 0.5)).toBe(3);
    expect(percentile(samples, 0.95)).toBe(5);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile([10, 20], 0.5)).toBe(10);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(95);
    expect(percentile([], 0.5)).toBeNaN();
    expect(samples).toEqual([5, 1, 4, 2, 3]); // not sorted in place
  });

  it("summarizes samples and compares with a base", () => {
    expect(latencyOf([1, 2, 3, 4])).toEqual({ p50: 2, p95: 4, samples: 4 });
    expect(ratio(30, 20)).toBe(1.5);
    expect(ratio(30, 0)).toBeNaN();
    expect(ratio(30, undefined)).toBeNaN();
  });
});

const fig = (name: string, p50: number, rps = 100, bad = 0): EndpointFigures => ({
  name,
  p50,
  p95: p50 * 2,
  samples: 50,
  rps,
  bad,
});

const run: BenchRun = {
  startedAt: "2026-01-02T03:04:05.000Z",
  database: "SQLite",
  seconds: 5,
  sizes: [
    {
      size: "empty",
      rows: "seed only",
      seed: "seed 40 ms",
      endpoints: [fig("GET /a", 10), fig("GET /b", 20)],
      heavy: [],
    },
    {
      size: "100k",
      rows: "100k users",
      seed: "reused",
      endpoints: [fig("GET /a", 14, 80), fig("GET /b", 45, 20)],
      heavy: [
        {
          name: "GET /dashboard",
          rps: 50,
          p99: 900,
          over2s: 3,
          bad: 0,
          stocks: [
            { name: "stock page", rps: 200, p99: 450 },
            { name: "stock empty page", rps: 500, p99: 100 },
          ],
        },
      ],
    },
  ],
};

describe("report", () => {
  it("flags over 30 ms p50, over 1.5x the empty figure, and bad responses", () => {
    expect(flagsFor(fig("x", 29), fig("x", 20))).toEqual([]);
    expect(flagsFor(fig("x", 31), fig("x", 30))).toEqual(["p50 > 30 ms"]);
    expect(flagsFor(fig("x", 16), fig("x", 10))).toEqual(["1.60x empty"]);
    expect(flagsFor(fig("x", 10, 1, 4), undefined)).toEqual(["4 bad responses"]);
    const empty = fig("x", 40);
    expect(flagsFor(empty, empty)).toEqual(["p50 > 30 ms"]);
  });

  it("prints each size with its ratios and the 50-connection figures beside the stock app", () => {
    const text = sizeTable(run.sizes[1]!, run.sizes[0]!);
    expect(text).toMatch(/GET \/a\s+14\.0\s+28\.0\s+80\.0\s+1\.40x$/m);
    expect(text).toMatch(/GET \/b\s+45\.0\s+90\.0\s+20\.0\s+2\.25x\s+p50 > 30 ms, 2\.25x empty$/m);
    expect(text).toMatch(
      /GET \/dashboard\s+50\.0\s+900\s+3\s+0\s+0\.25x, p99 2\.00x \(stock page 200\/s, p99 450 ms\); 0\.10x, p99 9\.00x \(stock empty page 500\/s, p99 100 ms\)/,
    );
  });

  it("draws the curve with flagged cells marked", () => {
    const text = curveTable(run);
    expect(text).toMatch(/GET \/a\s+10\.0, 100\s+14\.0 \(1\.40x\), 80\.0$/m);
    expect(text).toMatch(/GET \/b\s+20\.0, 100\s+!45\.0 \(2\.25x\), 20\.0$/m);
    expect(text).toContain("! marks 1 figure(s)");
  });

  it("writes the same curve as Markdown, flagged cells in bold", () => {
    expect(markdownTables(run).split("\n")).toEqual([
      "| page or endpoint | empty (seed only) | 100k (100k users) |",
      "|---|---|---|",
      "| `GET /a` | 10.0 ms · 100/s | 14.0 ms (1.40x) · 80.0/s |",
      "| `GET /b` | 20.0 ms · 100/s | **45.0 ms (2.25x) · 20.0/s** |",
      "",
      "| 50 connections | 100k |",
      "|---|---|",
      "| `GET /dashboard` | 50.0/s, p99 900 ms, 0.25x stock page (p99 2.00x), 0.10x stock empty page (p99 9.00x), 3 over 2 s |",
    ]);
  });

  it("says how loaded the machine was", () => {
    expect(readmeSection({ ...run, machine: { load: [10.31, 11.54], cores: 2 } })).toMatch(
      /^Measured 2026-01-02 on SQLite \(load average 10\.3 then 11\.5 on 2 cores\), 5 s of load/,
    );
  });

  it("replaces only the page's text between the markers", () => {
    const readme = `# App\n\nbefore\n${START}\nold table\n${END}\nafter\n`;
    expect(replaceSection(readme, "new table\n")).toBe(
      `# App\n\nbefore\n${START}\nnew table\n${END}\nafter\n`,
    );
    expect(() => replaceSection("# no markers", "x")).toThrow(/needs the lines/);
  });
});

describe("options", () => {
  it("reads the sizes to run, refusing unknown ones", () => {
    expect(parseSizes(undefined)).toEqual(["empty", "10k", "100k"]);
    expect(parseSizes("empty, 100k")).toEqual(["empty", "100k"]);
    expect(() => parseSizes("1M")).toThrow(/unknown size "1M"/);
  });

  it("keys the seeded databases by the latest migration and the sources' contents", () => {
    const root = mkdtempSync(join(tmpdir(), "bench-key-"));
    for (const dir of ["db", "scripts", "app/server"]) cpSync(dir, join(root, dir), { recursive: true });
    const key = cacheKey(root);
    expect(key).toMatch(/^\d{3}_[a-z0-9_]+_[0-9a-f]{10}$/);
    expect(cacheKey(root)).toBe(key);
    writeFileSync(join(root, "db/migrations/999_next.ts"), "export async function up() {}\n");
    const migrated = cacheKey(root);
    expect(migrated).toMatch(/^999_next_[0-9a-f]{10}$/);
    writeFileSync(join(root, "scripts/bulk/rows.ts"), "// changed\n", { flag: "a" });
    expect(cacheKey(root)).toMatch(/^999_next_/);
    expect(cacheKey(root)).not.toBe(migrated);
  });
});
