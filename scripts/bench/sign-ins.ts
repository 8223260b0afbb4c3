import type { Endpoint } from "./endpoints";
import { load } from "./load";
import { cpuMsOf } from "./server";

// Password sign-ins per second and per core (argon2id, app/auth/password.server.ts), and what they
// do to other requests: a page's p99 alone and while sign-ins run beside it (issue 23).
// Sizing published by others, for the note beside the figure: Keycloak 15 password sign-ins per
// second per vCPU; PocketBase about 28 per second on 2 vCPU.

export type SignInFigures = {
  perSecond: number;
  /** server CPU time (all threads: argon2 runs on libuv's pool) per sign-in */
  cpuMsPerSignIn: number;
  perCoreSecond: number;
  /** answers that were not the redirect of a signed-in person */
  failed: number;
  page: { name: string; aloneP99: number; besideP99: number; besideOver2s: number };
};

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
