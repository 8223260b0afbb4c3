/**
 * Every request of the cluster test goes through `send`, which counts it under the phase it
 * started in and the balancer it went through. A client that is told 503 with Retry-After waits
 * that long (at most 2 s) and tries again, as the app's own client does, for up to 20 s: such a
 * request is "deferred", and failed only if no try succeeds. Any other answer of 400 or above,
 * or a network error, fails it at once, except one that was in flight when an instance was
 * killed (`killed()`) and ended in a network error or a 502/504: its answer may have been
 * streaming already, which no balancer can take back and retry. Those are counted apart ("cut"),
 * with those sent within SENT_TO_THE_DEAD_MS after the kill: nginx may send one on a pooled
 * connection to the dead instance before it has read that connection's close, and never repeats a
 * POST it has sent (a cluster run of 2026-11-29: a POST through nginx answered 502 just after the kill).
 *
 * A GET or HEAD whose connection closes before any answer is sent again once ("resent"), as
 * browsers and curl do (RFC 9110 §9.2.2): haproxy answers a server-side failure on a reused
 * client connection, when no server is left to retry on, by closing that connection without a
 * word, precisely so that the client retries (haproxy/haproxy#2375, #1423). A POST is not resent.
 */
/** Well under the time a balancer takes to notice a dead instance (nginx: its first failure; haproxy: 3 s). */
const SENT_TO_THE_DEAD_MS = 500;

export type Outcome = { ok: true; res: Response; body: string } | { ok: false; reason: string };

type Counts = { sent: number; failed: number; deferred: number; cut: number; resent: number };

export type Failure = { at: string; phase: string; via: string; request: string; reason: string };

const GIVE_UP_MS = 20_000;

export class RequestLog {
  phase = "warm-up";
  readonly phases: string[] = ["warm-up"];
  /** When each phase began, so a moment can be named by its phase. */
  readonly phaseStarts: { phase: string; at: number }[] = [{ phase: "warm-up", at: Date.now() }];
  private readonly counts = new Map<string, Counts>();
  readonly failures: Failure[] = [];
  /** Requests in flight at a SIGKILL that ended in a network error or 502/504. */
  readonly cut: Failure[] = [];
  private readonly kills: number[] = [];
  private readonly started = Date.now();

  enter(phase: string) {
    this.phase = phase;
    this.phases.push(phase);
    this.phaseStarts.push({ phase, at: Date.now() });
  }

  /** "rolling restart +3.2s": the phase a moment fell in, and how far into it. */
  when(at: number): string {
    const start = this.phaseStarts.findLast((p) => p.at <= at) ?? this.phaseStarts[0]!;
    return `${start.phase} +${((at - start.at) / 1000).toFixed(1)}s`;
  }

  private countsFor(phase: string, via: string): Counts {
    const key = `${phase}\t${via}`;
    const c = this.counts.get(key) ?? { sent: 0, failed: 0, deferred: 0, cut: 0, resent: 0 };
    this.counts.set(key, c);
    return c;
  }

  total(): Counts {
    const t = { sent: 0, failed: 0, deferred: 0, cut: 0, resent: 0 };
    for (const c of this.counts.values()) {
      t.sent += c.sent;
      t.resent += c.resent;
      t.failed += c.failed;
      t.deferred += c.deferred;
      t.cut += c.cut;
    }
    return t;
  }

  /** The moment an instance gets SIGKILL. */
  killed() {
    this.kills.push(Date.now());
  }

  /** One line per phase and balancer: "kill -9       haproxy  sent 412  failed 3  deferred 0  cut 1". */
  table(): string {
    const lines: string[] = [];
    for (const phase of this.phases) {
      for (const [key, c] of this.counts) {
        const [p, via] = key.split("\t");
        if (p !== phase) continue;
        lines.push(
          `  ${phase.padEnd(18)} ${via!.padEnd(8)} sent ${String(c.sent).padStart(5)}  failed ${String(c.failed).padStart(4)}  cut by kill -9 ${c.cut}  deferred (503 + Retry-After) ${c.deferred}  resent ${c.resent}`,
        );
      }
    }
    return lines.join("\n");
  }

  async send(
    via: { name: string; url: string },
    method: string,
    path: string,
    init: { cookie?: string; json?: unknown; form?: Record<string, string> } = {},
  ): Promise<Outcome> {
    const phase = this.phase;
    const counts = this.countsFor(phase, via.name);
    counts.sent++;
    const start = Date.now();
    const headers: Record<string, string> = {};
    if (init.cookie) headers.Cookie = init.cookie;
    let body: string | undefined;
    if (init.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    let deferred = false;
    let resent = false;
    for (;;) {
      let reason: string;
      let broken = false; // a network error, or the balancer's word for one
      let answered = false;
      try {
        const res = await fetch(`${via.url}${path}`, {
          method,
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(15_000),
        });
        answered = true;
        const text = await res.text();
        if (res.status < 400) return { ok: true, res, body: text };
        const retryAfter = Number(res.headers.get("retry-after"));
        if (res.status === 503 && retryAfter > 0 && Date.now() - start < GIVE_UP_MS) {
          if (!deferred) counts.deferred++;
          deferred = true;
          await new Promise((r) => setTimeout(r, Math.min(retryAfter, 2) * 1000));
          continue;
        }
        broken = res.status === 502 || res.status === 504;
        reason = `status ${res.status}${res.headers.get("retry-after") ? ` (Retry-After ${res.headers.get("retry-after")})` : ""}: ${text.slice(0, 120).replace(/\s+/g, " ")}`;
      } catch (error) {
        const e = error as Error & { cause?: { code?: string; message?: string } };
        if (!answered && closedUnanswered(e) && (method === "GET" || method === "HEAD") && !resent) {
          counts.resent++;
          resent = true;
          continue;
        }
        broken = true;
        reason = `${e.name}: ${e.message}${e.cause ? ` (${e.cause.code ?? e.cause.message ?? e.cause})` : ""}`;
      }
      const failure = {
        at: `+${((start - this.started) / 1000).toFixed(1)}s`,
        phase,
        via: via.name,
        request: `${method} ${path}`,
        reason,
      };
      const end = Date.now();
      if (broken && this.kills.some((k) => start - SENT_TO_THE_DEAD_MS <= k && k <= end)) {
        counts.cut++;
        this.cut.push(failure);
      } else {
        counts.failed++;
        this.failures.push(failure);
      }
      return { ok: false, reason };
    }
  }
}

/** undici's word for a connection the other side closed before it sent any answer. */
function closedUnanswered(error: Error & { cause?: { code?: string; message?: string } }): boolean {
  return error.cause?.code === "UND_ERR_SOCKET" && /other side closed/.test(error.cause.message ?? "");
}
