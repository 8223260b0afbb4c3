import { z } from "zod";
import { APP_NAME } from "../config";
import { refusalBody } from "./answers";
import type { Operation } from "./operation";
import { OPERATIONS } from "./operations.server";

// `GET /api/openapi.json`: OpenAPI 3.1, generated from the operations table and the zod schemas the
// routes validate with (zod's own JSON Schema output, draft 2020-12, which OpenAPI 3.1 speaks).

const SECURITY = {
  session: [{ sessionCookie: [] }, { apiToken: [] }],
  scim: [{ scimToken: [] }],
  public: [],
} as const;

/** The request as a client writes it (defaults optional, before transforms); answers as sent. */
function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    reused: "inline",
  }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function parameters(op: Operation) {
  const path = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const query = op.query
    ? Object.entries(op.query.shape).map(([name, schema]) => ({
        name,
        in: "query",
        required: !(schema as z.ZodType).safeParse(undefined).success,
        schema: jsonSchema(schema as z.ZodType, "input"),
      }))
    : [];
  return [...path, ...query];
}

function responses(op: Operation) {
  const out: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(op.answers)) {
    const description = Number(status) < 400 ? "Success" : "Refused (see the `error` code)";
    if (body === "none") out[status] = { description };
    else if (body === "csv")
      out[status] = { description, content: { "text/csv": { schema: { type: "string" } } } };
    else if (body === "stream")
      out[status] = { description, content: { "text/event-stream": { schema: { type: "string" } } } };
    else if (body === "html")
      out[status] = { description, content: { "text/html": { schema: { type: "string" } } } };
    else if (body === refusalBody)
      out[status] = {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Refusal" } } },
      };
    else
      out[status] = {
        description,
        content: {
          [op.auth === "scim" ? "application/scim+json" : "application/json"]: {
            schema: jsonSchema(body, "output"),
          },
        },
      };
  }
  return out;
}

function operation(op: Operation) {
  return {
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
    summary: op.summary,
    tags: [op.tag],
    security: SECURITY[op.auth],
    parameters: parameters(op),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              [op.body.form
                ? "application/x-www-form-urlencoded"
                : op.auth === "scim"
                  ? "application/scim+json"
                  : "application/json"]: { schema: jsonSchema(op.body.schema, "input") },
            },
          },
        }
      : {}),
    responses: responses(op),
  };
}

let built: object | undefined;

export function apiDocument(): object {
  if (built) return built;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operation(op);
  }
  built = {
    openapi: "3.1.0",
    info: {
      title: `${APP_NAME} API`,
      version: "1",
      description:
        "Every request is JSON unless marked; every refusal is the one body `Refusal`. Sign in with the session cookie, or send a personal API token as `Authorization: Bearer …`. The HTTP contract: docs/http-contract.md.",
    },
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Refusal: jsonSchema(refusalBody, "output") },
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: "__session" },
        apiToken: {
          type: "http",
          scheme: "bearer",
          description: "A personal API token (Settings → API tokens)",
        },
        scimToken: {
          type: "http",
          scheme: "bearer",
          description: "A directory's SCIM token (Settings → Directory provisioning)",
        },
      },
    },
  };
  return built;
}
