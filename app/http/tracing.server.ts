import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

// OpenTelemetry traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set (DESIGN §6,
// "Tracing"); unset, the SDK is never loaded and every helper here is a check of one boolean.
// Spans: one per request named by its route pattern (node-server.server.ts), its queries
// (db.server.ts), a task's run and completion and the event pushed for it, mail and outgoing
// webhooks as client spans. A task carries its request's trace context in its row
// (`task.trace_parent`), so its run, completion and event join the request's trace.

let active = false;
let shutdown: (() => Promise<void>) | undefined;

const tracingConfigured = () => Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);

/** True once the SDK is registered: the hot paths ask this before doing anything. */
export const tracing = () => active;

const tracer = () => trace.getTracer("admin-dashboard");

/** Loads and registers the SDK when configured; the exporter reads the OTEL_* variables itself. */
export async function startTracing(): Promise<void> {
  if (active || !tracingConfigured()) return;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    core,
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/core"),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME || "admin-dashboard" }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  shutdown = () => provider.shutdown();
  active = true;
}

/** Sends what is buffered; at the end of the stop sequence. */
export async function stopTracing(): Promise<void> {
  active = false;
  await shutdown?.().catch(() => undefined);
  shutdown = undefined;
}

type Carrier = Record<string, string | string[] | undefined>;

/** The incoming trace context: only from a proxy that is trusted to set it; else a new trace. */
export function incomingContext(headers: Carrier, trustProxy: boolean): Context {
  if (!trustProxy) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    get: (carrier, key) => carrier[key],
    keys: (carrier) => Object.keys(carrier),
  });
}

/** A request's span, active for `run`; the caller ends it when the answer is sent. */
export function startRequestSpan<T>(method: string, parent: Context, run: (span: Span) => T): T {
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": method } },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => run(span));
}

/** The active span's context as a `traceparent` value, to store with work that runs later. */
export function currentTraceParent(): string | null {
  if (!active) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * `run` inside a span named `name`, a child of `parent` (a stored traceparent) when given, else of
 * the active span. Without tracing, `run` alone.
 */
export async function inSpan<T>(
  name: string,
  options: {
    kind?: "internal" | "client";
    parent?: string | null;
    attributes?: Record<string, string | number>;
  },
  run: () => Promise<T>,
): Promise<T> {
  if (!active) return run();
  const base =
    options.parent !== undefined && options.parent !== null
      ? propagation.extract(ROOT_CONTEXT, { traceparent: options.parent })
      : context.active();
  const span = tracer().startSpan(
    name,
    { kind: options.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: options.attributes },
    base,
  );
  try {
    return await context.with(trace.setSpan(base, span), run);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/** A finished query as a client span of the active one (Kysely's log event, after the fact). */
export function traceQuery(event: { level: string; queryDurationMillis: number; query: { sql: string } }) {
  if (!active) return;
  // Observability never throws into the query it observes (SECURITY-PLAYBOOK §3).
  try {
    spanOfQuery(event);
  } catch {}
}

function spanOfQuery(event: { level: string; queryDurationMillis: number; query: { sql: string } }) {
  const end = Date.now();
  const sqlText = event.query.sql;
  const span = tracer().startSpan(`db ${sqlText.trimStart().split(/\s/, 1)[0]!.toLowerCase()}`, {
    kind: SpanKind.CLIENT,
    startTime: end - event.queryDurationMillis,
    // The statement with its placeholders, never the values it was sent with.
    attributes: { "db.query.text": sqlText.slice(0, 2000) },
  });
  if (event.level === "error") span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(end);
}
