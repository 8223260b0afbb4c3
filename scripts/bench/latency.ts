import http from "node:http";
import type { BenchRequest, Endpoint } from "./endpoints";
import { type Latency, latencyOf } from "./stats";

/** Sends one request and reads the whole answer; resolves with its status and time to the last byte. */
export function send(
  base: string,
  req: BenchRequest,
  agent: http.Agent,
): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const r = http.request(
      `${base}${req.path}`,
      {
        method: req.method,
        agent,
        headers: { ...req.headers, ...(req.body ? { "Content-Length": Buffer.byteLength(req.body) } : {}) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (body.length < 2000) body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body }));
        res.on("error", reject);
      },
    );
    r.on("error", reject);
    r.end(req.body);
  });
}

/**
 * p50/p95 of one request at a time, after up to `warmup` requests (2 s at most): at most `samples` requests or
 * `budgetMs`, whichever comes first, but never fewer than `minSamples` (slow pages get fewer).
 * A status other than the expected one stops the bench: it would be measuring an error page.
 */
export async function sequentialLatency(
  base: string,
  endpoint: Endpoint,
  opts: { samples: number; budgetMs?: number; warmup?: number; minSamples?: number },
): Promise<Latency> {
  const { budgetMs = 4000, warmup = 5, minSamples = 5 } = opts;
  // One keep-alive connection, as a browser tab reuses its own: the figure is the server's time per
  // request plus loopback, without a TCP handshake each time. One per figure: a socket kept from
  // an earlier size's server (on the same port, since stopped) would be reset.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await measure(base, endpoint, agent, { budgetMs, warmup, minSamples, samples: opts.samples });
  } finally {
    agent.destroy();
  }
}

async function measure(
  base: string,
  endpoint: Endpoint,
  agent: http.Agent,
  opts: { samples: number; budgetMs: number; warmup: number; minSamples: number },
): Promise<Latency> {
  const { budgetMs, warmup, minSamples } = opts;
  const warming = performance.now();
  for (let i = 0; i < warmup && (i === 0 || performance.now() - warming < 2000); i++)
    await expectStatus(base, endpoint, agent);
  const times: number[] = [];
  const started = performance.now();
  while (
    times.length < minSamples ||
    (times.length < opts.samples && performance.now() - started < budgetMs)
  ) {
    times.push(await expectStatus(base, endpoint, agent));
  }
  return latencyOf(times);
}

async function expectStatus(base: string, endpoint: Endpoint, agent: http.Agent): Promise<number> {
  const res = await send(base, endpoint.request(), agent);
  if (res.status !== endpoint.expect)
    throw new Error(
      `${endpoint.name} answered ${res.status}, expected ${endpoint.expect}: ${res.body.slice(0, 300)}`,
    );
  return res.ms;
}
