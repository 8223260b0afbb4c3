// The few parts of autocannon's API the benchmark uses (the package ships no types).
declare module "autocannon" {
  type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  type Options = Request & {
    url: string;
    connections?: number;
    duration?: number;
    /** seconds before a request counts as timed out (and its connection is dropped) */
    timeout?: number;
    requests?: (Request & { setupRequest?: (req: Request) => Request })[];
  };
  type Histogram = { average: number; p50: number; p99: number; max: number };
  export type Result = {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  };
  export type Instance = PromiseLike<Result> & {
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void,
    ): void;
  };
  export default function autocannon(options: Options): Instance;
}
