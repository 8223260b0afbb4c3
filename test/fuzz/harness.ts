import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { type AppServer, startApp } from "../app-server";
import { sessionCookieFor, setupDatabase } from "../helpers";
import { intentTableKeys } from "../intent-tables";
import { ROUTE_FILES } from "../route-files";
import { expectPrototypesClean, scrubPrototypes } from "../support/hostile-keys";
import { type Caller, makeCaller, makePools } from "./fixtures";
import { encode, type Sent, webhookHeaders } from "./requests";
import { changed, snapshot } from "./snapshot";
import { DASHBOARD } from "./table-dashboard";
import { DIRECTORY_TARGETS } from "./table-directory";
import { LOADERS } from "./table-loaders";
import { API, PUBLIC } from "./table-public";
import { SSO_TARGETS } from "./table-sso";
import { ANY_INTENT, type CallerKind, type FuzzTarget } from "./target";

// The fuzz test's machinery (test/fuzz.test.ts says what it checks). After every request no
// built-in prototype has gained a property, and after every target the app still answers. Its table is run in three
// files, so that vitest spreads it over its workers: the Settings page's actions
// (test/fuzz-settings.test.ts), the other dashboard actions (test/fuzz-dashboard.test.ts), and
// everything else (test/fuzz.test.ts). Every target is in exactly one of them (partOf).

export const TABLE: FuzzTarget[] = [
  ...DASHBOARD,
  ...PUBLIC,
  ...API,
  ...LOADERS,
  ...SSO_TARGETS,
  ...DIRECTORY_TARGETS,
];
// FUZZ_SEED and FUZZ_RUNS (a multiplier) explore further by hand; `npm test` runs the fixed ones.
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_914);
// On PostgreSQL half the runs: what differs there is how values are stored (NUL, long text, odd
// dates, huge numbers), which fast-check draws among its first runs; the rest of a run's inputs
// exercise the same code as on SQLite, at three times the cost (docs/testing.md).
const SCALE = Number(process.env.FUZZ_RUNS ?? (process.env.TEST_DATABASE === "postgres" ? 0.5 : 1));
const RUNS = 25;

let app: AppServer;
let guest: Caller;

let ipCounter = 0;
let deliveries: typeof import("../../app/mail/deliveries.server");
let config: typeof import("../../app/system-settings/system-config.server");

/** The app the targets are sent to (started before the file's tests). */
export const fuzzApp = () => app;

export type FuzzPart = "settings" | "dashboard" | "rest";

function partOf(t: FuzzTarget): FuzzPart {
  if (t.method === "GET" || !t.route.startsWith("routes/dashboard")) return "rest";
  return t.route.startsWith("routes/dashboard.settings") ? "settings" : "dashboard";
}

/** Starts the app on this file's database; call at the top of a fuzz test file. */
export function startFuzzApp() {
  beforeAll(startForFuzz, 60_000);
  afterAll(() => app?.close());
  // A target that polluted a prototype fails alone; the ones after it run on clean prototypes.
  afterEach(scrubPrototypes);
}

async function startForFuzz() {
  // React Router logs every request it cannot route (a POST to a loader-only route, a path that is
  // not valid percent-encoding) before answering 405/400; thousands of those drown real output.
  for (const level of ["error", "warn"] as const) {
    const log = console[level];
    vi.spyOn(console, level).mockImplementation((...parts: unknown[]) => {
      if (/did not provide an `action`|could not be decoded/.test(String(parts[0]))) return;
      log(...parts);
    });
  }
  await setupDatabase();
  guest = await makeCaller(["guest"]);
  app = await startApp();
  // No task runs during the fuzz: background work writing rows would look like a refusal's write.
  const runner = await app.module<typeof import("../../app/tasks/runner.server")>(
    "app/tasks/runner.server.ts",
  );
  runner.setTaskRunner({ dispatch() {}, async start() {}, async stop() {} });
  deliveries = await app.module<typeof import("../../app/mail/deliveries.server")>(
    "app/mail/deliveries.server.ts",
  );
  config = await app.module<typeof import("../../app/system-settings/system-config.server")>(
    "app/system-settings/system-config.server.ts",
  );
}

const read = (file: string) => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
};

/** Settings' pages hand their forms to one function each of the account and workspace modules. */
const SETTINGS_RUNNERS: Record<string, [file: string, runner: string]> = {
  "routes/dashboard.settings.profile": ["account-settings", "runProfileIntent"],
  "routes/dashboard.settings.security": ["account-settings", "runSecurityIntent"],
  "routes/dashboard.settings.api-tokens": ["account-settings", "runApiTokensIntent"],
  "routes/dashboard.settings.system": ["workspace-settings", "runSystemIntent"],
  "routes/dashboard.settings.webhooks": ["workspace-settings", "runWebhooksIntent"],
  "routes/dashboard.settings.invite": ["workspace-settings", "runInviteIntent"],
  "routes/dashboard.settings.email-templates": ["email-templates-page", "runEmailTemplatesIntent"],
};

/** The source of the function a route hands its form to (its intent table), or nothing. */
function handedTo(route: string): string {
  const runner = SETTINGS_RUNNERS[route];
  if (!runner) return "";
  const source = read(`app/settings/${runner[0]}.server.ts`);
  const start = source.indexOf(`export const ${runner[1]} =`);
  if (start < 0)
    throw new Error(`${runner[1]} not found: test/fuzz/harness.ts's SETTINGS_RUNNERS is out of date`);
  const end = source.indexOf("\nexport ", start + 1);
  return source.slice(start, end < 0 ? undefined : end);
}

/** Every intent a route module (or the function it hands its form to) tests for or lists in its table. */
export function intentsIn(route: string): string[] {
  const file = ROUTE_FILES.get(route);
  if (!file) throw new Error(`${route}: no such route in app/routes.ts`);
  const source = [read(file), handedTo(route)].join("\n");
  const patterns = [
    /(?<!typeof )intent"?\)?\s*[!=]==\s*"([\w-]+)"/g,
    /case\s+"([\w-]+)"/g,
    /intent: z\.literal\("([\w-]+)"\)/g,
  ];
  const tested = patterns.flatMap((re) => [...source.matchAll(re)].map((m) => m[1]!));
  return [...new Set([...tested, ...intentTableKeys(source)])].sort();
}

async function send(sent: Sent, cookie: string | undefined) {
  const { headers, body } = encode(sent);
  if (sent.signature) {
    const taskId = sent.fields?.find(([k]) => k === "taskId")?.[1];
    Object.assign(headers, webhookHeaders(sent.signature, typeof body === "string" ? body : "", taskId));
  }
  ipCounter += 1;
  const ip = `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
  const res = await app.fetch(sent.path, { method: sent.method, cookie, headers, body, ip });
  const streaming = res.headers.get("Content-Type")?.startsWith("text/event-stream");
  const text = streaming ? "" : await res.text();
  if (streaming) await res.body?.cancel();
  // A public form answers before its email (and the token in it) is made: wait for that, so the
  // next request's snapshot does not see this one's writes landing late.
  await deliveries.settleDeliveries();
  return { status: res.status, text };
}

function label(t: FuzzTarget) {
  const what = t.intent === undefined ? "" : t.intent === ANY_INTENT ? " (unknown intent)" : ` ${t.intent}`;
  return `${t.method} ${t.route}${what}`;
}

/** One test per target of `part`: hostile requests, and no 5xx and no write on a refusal. */
export function fuzzTargets(part: FuzzPart) {
  it.each(TABLE.filter((t) => partOf(t) === part).map((t) => [label(t), t] as const))(
    "%s",
    async (_, target) => {
      const admin = await makeCaller(["super_admin"]);
      const pools = await makePools(admin);
      const main: CallerKind = target.caller ?? "admin";
      const others = (["admin", "guest", "anon"] as const).filter((c) => c !== main);
      const caller = fc.oneof(
        { weight: 6, arbitrary: fc.constant(main) },
        { weight: 1, arbitrary: fc.constantFrom(...others) },
      );
      const cookieOf = async (as: CallerKind) => {
        if (as === "anon") return undefined;
        if (as === "guest") return guest.cookie;
        return target.freshSession ? sessionCookieFor(admin.id) : admin.cookie;
      };
      const statuses: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(caller, target.request(pools), async (as, sent) => {
          const cookie = await cookieOf(as);
          const before = await snapshot(target.mayWrite);
          const res = await send(sent, cookie);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          const where = `as ${as}: ${sent.method} ${sent.path.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`server error ${where}`);
          expectPrototypesClean(where);
          if (res.status >= 400) {
            const diff = changed(before, await snapshot(target.mayWrite));
            if (diff.length) throw new Error(`refused, yet changed ${diff.join(", ")}: ${where}`);
          }
          // A saved mail API key (valid input) would send the rest of the run's mail to the real
          // provider, unreachable here: 502 mail_failed, as documented. Mail stays in the outbox.
          if (target.route === "routes/dashboard.settings.system")
            await config.resetSystemConfig("MAIL_API_KEY");
        }),
        { numRuns: Math.ceil((target.runs ?? RUNS) * SCALE), seed: SEED, endOnFailure: true },
      );
      // Still serving after the whole target (a throw in a listener would have ended a real server).
      expect((await app.fetch("/login")).status).toBe(200);
      // FUZZ_STATS=1 shows how each target was answered, to see that validation is reached.
      if (process.env.FUZZ_STATS) console.log(label(target), JSON.stringify(statuses));
    },
    120_000,
  );
}
