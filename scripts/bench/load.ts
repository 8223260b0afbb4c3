import autocannon from "autocannon";
import type { Endpoint } from "./endpoints";

export type LoadFigures = { rps: number; p50: number; p99: number; over2s: number; bad: number };

/**
 * `connections` clients sending `endpoint` back to back for `seconds`. Requests over 2 s are
 * counted from each response's own time (nothing is cut off: a slow answer still completes).
 */
export async function load(
  base: string,
  endpoint: Endpoint,
  connections: number,
  seconds: number,
): Promise<LoadFigures> {
  const first = endpoint.request();
  const instance = autocannon({
    url: base,
    connections,
    duration: seconds,
    timeout: 30,
    ...first,
    requests: [{ ...first, setupRequest: (req) => ({ ...req, ...endpoint.request() }) }],
  });
  let over2s = 0;
  let unexpected = 0;
  instance.on("response", (_client, status, _bytes, ms) => {
    if (ms > 2000) over2s++;
    if (status !== endpoint.expect) unexpected++;
  });
  const r = await instance;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    over2s,
    bad: unexpected + r.errors + r.timeouts,
  };
}
