import type { Endpoint } from "./endpoints";
import { load } from "./load";
import { cpuMsOf } from "./server";

// Password sign-ins per second and per core, and a page's p99 while they run beside it.

export type SignInFigures = {
  perSecond: number;
  /** all threads: argon2 runs on libuv's pool */
  cpuMsPerSignIn: number;
  perCoreSecond: number;
  failed: number;
  page: { name: string; aloneP99: number; besideP99: number; besideOver2s: number };
};

/** The server must let one address sign in this often: start it with RATE_LIMIT_LOGIN_PER_IP raised. */
export async function signInFigures(options: {
  base: string;
  pid: number;
  email: string;
  password: string;
  page: Endpoint;
  connections?: number;
  seconds: number;
}): Promise<SignInFigures> {
  const { base, pid, seconds, page, email, password } = options;
  const connections = options.connections ?? 8;
  const signIn: Endpoint = {
    name: "POST /login",
    expect: 302,
    request: () => ({
      method: "POST",
      path: "/login",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "Sec-Fetch-Site": "same-origin",
        Origin: base,
      },
      body: new URLSearchParams({ email, password }).toString(),
    }),
  };
  const before = cpuMsOf(pid);
  const solo = await load(base, signIn, connections, seconds);
  const cpuMs = cpuMsOf(pid) - before;
  const ok = Math.max(1, Math.round(solo.rps * seconds) - solo.bad);
  const alone = await load(base, page, 10, seconds);
  const [, beside] = await Promise.all([
    load(base, signIn, connections, seconds),
    load(base, page, 10, seconds),
  ]);
  return {
    perSecond: ok / seconds,
    cpuMsPerSignIn: cpuMs / ok,
    perCoreSecond: (1000 * ok) / Math.max(1, cpuMs),
    failed: solo.bad,
    page: { name: page.name, aloneP99: alone.p99, besideP99: beside.p99, besideOver2s: beside.over2s },
  };
}
