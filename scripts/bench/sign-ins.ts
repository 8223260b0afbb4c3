import autocannon from "autocannon";
import { cpuMsOf } from "./server";

// Password sign-ins per second and per core (argon2id, app/auth/password.server.ts), and what they
// do to other requests: the same page's p99 alone and while sign-ins run beside it (issue 23).
// Sizing published by others, for the note beside the figure: Keycloak 15 password sign-ins per
// second per vCPU; PocketBase about 28 per second on 2 vCPU.

export type SignInFigures = {
  perSecond: number;
  /** server CPU time (all threads: argon2 runs on libuv's pool) per sign-in */
  cpuMsPerSignIn: number;
  perCoreSecond: number;
  /** answers that were no redirect, by status ("3x 429"), or "" */
  failed: string;
  page: { name: string; aloneP99: number; besideP99: number; besideOver2s: number };
};

type Target = { url: string; headers?: Record<string, string> };

async function measure(target: Target, connections: number, seconds: number) {
  const instance = autocannon({ ...target, connections, duration: seconds, timeout: 30 });
  let over2s = 0;
  instance.on("response", (_client, _status, _bytes, ms) => {
    if (ms > 2000) over2s++;
  });
  return { result: await instance, over2s };
}

function signIns(base: string, email: string, password: string, connections: number, seconds: number) {
  const instance = autocannon({
    url: `${base}/login`,
    method: "POST",
    connections,
    duration: seconds,
    timeout: 30,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Sec-Fetch-Site": "same-origin",
      Origin: base,
    },
    body: new URLSearchParams({ email, password }).toString(),
  });
  const failed = new Map<number, number>();
  instance.on("response", (_client, status) => {
    if (status < 300 || status >= 400) failed.set(status, (failed.get(status) ?? 0) + 1);
  });
  return instance.then((result) => {
    const bad = [...failed.values()].reduce((a, b) => a + b, 0);
    return { ok: result.requests.total - bad, failed: [...failed].map(([s, n]) => `${n}x ${s}`).join(", ") };
  });
}

/**
 * `connections` clients signing in back to back as `email`/`password` (each answer a redirect
 * with a new session): alone, for the rate and the CPU per sign-in; then beside 10 clients
 * loading `page`, whose p99 is compared with its p99 alone. The server must let one address sign
 * in this often: start it with RATE_LIMIT_LOGIN_PER_IP raised.
 */
export async function signInFigures(options: {
  base: string;
  pid: number;
  email: string;
  password: string;
  page: Target & { name: string };
  connections?: number;
  seconds: number;
}): Promise<SignInFigures> {
  const { base, pid, seconds, page, email, password } = options;
  const connections = options.connections ?? 8;
  const before = cpuMsOf(pid);
  const solo = await signIns(base, email, password, connections, seconds);
  const cpuMs = cpuMsOf(pid) - before;
  const alone = await measure(page, 10, seconds);
  const [, beside] = await Promise.all([
    signIns(base, email, password, connections, seconds),
    measure(page, 10, seconds),
  ]);
  return {
    perSecond: solo.ok / seconds,
    cpuMsPerSignIn: cpuMs / Math.max(1, solo.ok),
    perCoreSecond: (1000 * solo.ok) / Math.max(1, cpuMs),
    failed: solo.failed,
    page: {
      name: page.name,
      aloneP99: alone.result.latency.p99,
      besideP99: beside.result.latency.p99,
      besideOver2s: beside.over2s,
    },
  };
}
