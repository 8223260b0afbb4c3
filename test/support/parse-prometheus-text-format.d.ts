// The parser has no types of its own; this is the shape its README documents (prom2json's).
declare module "parse-prometheus-text-format" {
  export type PrometheusSample = {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  };
  export type PrometheusFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: PrometheusSample[];
  };
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
