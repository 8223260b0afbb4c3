import { ratio } from "./stats";

// What the bench flags (docs/performance.md).
export const P50_LIMIT_MS = 30;
export const GROWTH_LIMIT = 1.5;

export type EndpointFigures = {
  name: string;
  p50: number;
  p95: number;
  samples: number;
  rps: number;
  /** other statuses, errors and timeouts under load */
  bad: number;
};

export type HeavyFigures = {
  name: string;
  rps: number;
  p99: number;
  over2s: number;
  bad: number;
  stocks?: { name: string; rps: number; p99: number }[];
};

export type SizeResult = {
  size: string;
  rows: string;
  seed: string;
  endpoints: EndpointFigures[];
  heavy: HeavyFigures[];
};

export type BenchRun = {
  startedAt: string;
  database: "SQLite" | "PostgreSQL";
  seconds: number;
  sizes: SizeResult[];
  sse?: string[];
  machine?: { load: [number, number]; cores: number };
};

/** How shared the machine was while the figures were taken. */
export function machineNote(run: BenchRun): string {
  if (!run.machine) return "";
  const [start, end] = run.machine.load;
  return `load average ${start.toFixed(1)} then ${end.toFixed(1)} on ${run.machine.cores} cores`;
}

const ms = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : "-");
const times = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : "-");
const rps = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

export function flagsFor(fig: EndpointFigures, empty: EndpointFigures | undefined): string[] {
  const flags: string[] = [];
  if (fig.p50 > P50_LIMIT_MS) flags.push(`p50 > ${P50_LIMIT_MS} ms`);
  const grew = ratio(fig.p50, empty?.p50);
  if (empty && empty !== fig && grew > GROWTH_LIMIT) flags.push(`${times(grew)} empty`);
  if (fig.bad) flags.push(`${fig.bad} bad responses`);
  return flags;
}

function baselineOf(run: BenchRun): SizeResult | undefined {
  return run.sizes.find((s) => s.size === "empty");
}

const NAME_WIDTH = 46;

const pad = (cells: string[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");

export function sizeTable(result: SizeResult, empty: SizeResult | undefined): string {
  const widths = [NAME_WIDTH, 8, 8, 9, 8];
  const lines = [
    `${result.size}: ${result.rows}; ${result.seed}`,
    `${pad(["one request at a time / 10 connections", "p50 ms", "p95 ms", "req/s", "x empty"], widths)}  flags`,
  ];
  for (const fig of result.endpoints) {
    const base = empty?.endpoints.find((e) => e.name === fig.name);
    const cells = [fig.name, ms(fig.p50), ms(fig.p95), rps(fig.rps), times(ratio(fig.p50, base?.p50))];
    lines.push(`${pad(cells, widths)}  ${flagsFor(fig, base).join(", ")}`.trimEnd());
  }
  if (result.heavy.length) {
    lines.push("", `${pad(["50 connections", "req/s", "p99 ms", "> 2 s", "bad"], widths)}  x stock`);
    for (const h of result.heavy) {
      const vsStock = h.stocks?.length
        ? h.stocks
            .map(
              (st) =>
                `${times(ratio(h.rps, st.rps))}, p99 ${times(ratio(h.p99, st.p99))} (${st.name} ${rps(st.rps)}/s, p99 ${ms(st.p99)} ms)`,
            )
            .join("; ")
        : "-";
      lines.push(
        `${pad([h.name, rps(h.rps), ms(h.p99), String(h.over2s), String(h.bad)], widths)}  ${vsStock}`,
      );
    }
  }
  return lines.join("\n");
}

const curveWidths = (run: BenchRun) => [NAME_WIDTH, ...run.sizes.map(() => 22)];

export function curveHeader(run: BenchRun): string {
  return pad(["p50 ms (x empty), req/s at 10", ...run.sizes.map((s) => s.size)], curveWidths(run));
}

export function curveRow(run: BenchRun, name: string): { line: string; flagged: number } {
  const empty = baselineOf(run);
  const base = empty?.endpoints.find((e) => e.name === name);
  let flagged = 0;
  const cells = run.sizes.map((s) => {
    const fig = s.endpoints.find((e) => e.name === name);
    if (!fig) return "-";
    const bad = flagsFor(fig, base).length > 0;
    if (bad) flagged++;
    const grew = s === empty ? "" : ` (${times(ratio(fig.p50, base?.p50))})`;
    return `${bad ? "!" : ""}${ms(fig.p50)}${grew}, ${rps(fig.rps)}`;
  });
  return { line: pad([name, ...cells], curveWidths(run)), flagged };
}

export function curveTable(run: BenchRun): string {
  const rows = unique(run.sizes.flatMap((s) => s.endpoints.map((e) => e.name))).map((n) => curveRow(run, n));
  const flagged = rows.reduce((sum, r) => sum + r.flagged, 0);
  return [
    curveHeader(run),
    ...rows.map((r) => r.line),
    "",
    `! marks ${flagged} figure(s) over ${P50_LIMIT_MS} ms p50 or over ${GROWTH_LIMIT}x the empty database`,
  ].join("\n");
}

export function markdownTables(run: BenchRun): string {
  const empty = baselineOf(run);
  const names = unique(run.sizes.flatMap((s) => s.endpoints.map((e) => e.name)));
  const header = `| page or endpoint | ${run.sizes.map((s) => `${s.size} (${s.rows})`).join(" | ")} |`;
  const rows = names.map((name) => {
    const base = empty?.endpoints.find((e) => e.name === name);
    const cells = run.sizes.map((s) => {
      const fig = s.endpoints.find((e) => e.name === name);
      if (!fig) return "-";
      const grew = s === empty ? "" : ` (${times(ratio(fig.p50, base?.p50))})`;
      const text = `${ms(fig.p50)} ms${grew} · ${rps(fig.rps)}/s`;
      return flagsFor(fig, base).length ? `**${text}**` : text;
    });
    return `| \`${name}\` | ${cells.join(" | ")} |`;
  });
  const out = [header, `|---|${run.sizes.map(() => "---|").join("")}`, ...rows];
  const heavy = run.sizes.filter((s) => s.heavy.length);
  if (heavy.length) {
    out.push(
      "",
      `| 50 connections | ${heavy.map((s) => s.size).join(" | ")} |`,
      `|---|${heavy.map(() => "---|").join("")}`,
    );
    for (const name of unique(heavy.flatMap((s) => s.heavy.map((h) => h.name)))) {
      const cells = heavy.map((s) => {
        const h = s.heavy.find((x) => x.name === name);
        if (!h) return "-";
        const vs = (h.stocks ?? [])
          .map((st) => `, ${times(ratio(h.rps, st.rps))} ${st.name} (p99 ${times(ratio(h.p99, st.p99))})`)
          .join("");
        return `${rps(h.rps)}/s, p99 ${ms(h.p99)} ms${vs}, ${h.over2s} over 2 s`;
      });
      out.push(`| \`${name}\` | ${cells.join(" | ")} |`);
    }
  }
  if (run.sse?.length) out.push("", ...run.sse.map((line) => `- SSE: ${line.replace(/\s+/g, " ").trim()}`));
  return out.join("\n");
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
