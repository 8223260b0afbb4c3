import http from "node:http";
import type { BenchRequest, Endpoint } from "./endpoints";
import { type Latency, latencyOf } from "./stats";

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

export type Case = { base: string; endpoint: Endpoint };

/**
 * Taken in turns across the servers, so the shared machine's other load weighs on every size alike.
 * A status other than the expected one stops the bench: it would be measuring an error page.
 */
export async function pairedLatency(
  cases: Case[],
  opts: { samples: number; budgetMs?: number; warmup?: number; minSamples?: number },
): Promise<Latency[]> {
  const { budgetMs = 4000, warmup = 5, minSamples = 5 } = opts;
  // One keep-alive connection per server, as a browser tab; new ones per figure, as a kept socket would be reset.
  const agents = cases.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    for (const [i, c] of cases.entries()) {
      const warming = performance.now();
      for (let n = 0; n < warmup && (n === 0 || performance.now() - warming < 2000); n++)
        await expectStatus(c, agents[i]!);
    }
    const times: number[][] = cases.map(() => []);
    const spent = cases.map(() => 0);
    const wants = (i: number) =>
      times[i]!.length < minSamples || (times[i]!.length < opts.samples && spent[i]! < budgetMs);
    while (cases.some((_, i) => wants(i))) {
      for (const [i, c] of cases.entries()) {
        if (!wants(i)) continue;
        const ms = await expectStatus(c, agents[i]!);
        times[i]!.push(ms);
        spent[i]! += ms;
      }
    }
    return times.map(latencyOf);
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

async function expectStatus({ base, endpoint }: Case, agent: http.Agent): Promise<number> {
  const res = await send(base, endpoint.request(), agent);
  if (res.status !== endpoint.expect)
    throw new Error(
      `${endpoint.name} answered ${res.status}, expected ${endpoint.expect}: ${res.body.slice(0, 300)}`,
    );
  return res.ms;
}
