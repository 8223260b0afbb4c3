// Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time went: self time by function
// and by package or project file, and the inclusive time of the heaviest frames.
//   tsx scripts/bench/profile-summary.ts DIR_OR_FILE [top=25] [skipSeconds=0]
// skipSeconds leaves out the start (module loading, migrations) to see the requests alone.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

type Frame = { functionName: string; url: string; lineNumber: number };
type Node = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const [target = ".", topArg = "25", skipArg = "0"] = process.argv.slice(2);
const top = Number(topArg);
const skipUs = Number(skipArg) * 1e6;
const file = statSync(target).isDirectory()
  ? join(
      target,
      readdirSync(target)
        .filter((f) => f.endsWith(".cpuprofile"))
        .sort()
        .at(-1) ?? "",
    )
  : target;
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map<number, number>();
let elapsed = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  elapsed += delta;
  if (elapsed >= skipUs) self.set(id, (self.get(id) ?? 0) + delta);
});
// Percentages are of the busy time: idle samples are counted apart.
let idle = 0;
for (const [id, us] of self) {
  if (byId.get(id)!.callFrame.functionName === "(idle)") {
    idle += us;
    self.delete(id);
  }
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** "react-router", "@react-router/node", "app/root.tsx", "node:internal/…", "(idle)". */
function where(frame: Frame): string {
  const url = frame.url;
  if (frame.functionName === "(idle)") return "(idle)";
  if (!url) return frame.functionName.startsWith("(") ? frame.functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return url.split("/").slice(0, 2).join("/");
  return url.replace(/^file:\/\/.*?\/(build[^/]*\/|wt-[^/]+\/)/, "");
}

const label = (f: Frame) => `${f.functionName || "(anonymous)"} ${where(f)}:${f.lineNumber + 1}`;
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;

function print(title: string, entries: Map<string, number>) {
  console.log(`\n${title}`);
  for (const [key, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${pct(us)}  ${key}`);
}

const selfByFunction = new Map<string, number>();
const selfByWhere = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const frame = byId.get(id)!.callFrame;
  selfByFunction.set(label(frame), (selfByFunction.get(label(frame)) ?? 0) + us);
  selfByWhere.set(where(frame), (selfByWhere.get(where(frame)) ?? 0) + us);
  // Each distinct frame on the stack once (recursion counted once).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const key = label(byId.get(cur)!.callFrame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

console.log(`${file}: ${(total / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle`);
print("self time by package / file", selfByWhere);
print("self time by function", selfByFunction);
print("inclusive time by function", inclusive);
