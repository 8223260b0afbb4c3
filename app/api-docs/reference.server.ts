import { apiDocument } from "./document.server";

// The description as a page reads it: operations by tag, each with what it takes and answers.

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; required: boolean; schema: Schema };
type Operation = {
  operationId: string;
  summary: string;
  tags: string[];
  security: Record<string, unknown>[];
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
};

export type ReferenceOperation = {
  id: string;
  method: string;
  path: string;
  summary: string;
  auth: string[];
  parameters: { name: string; in: string; required: boolean; type: string }[];
  body: { type: string; schema: string } | null;
  answers: { status: string; type: string | null }[];
};

const typeOf = (schema: Schema) =>
  typeof schema.type === "string" ? schema.type : Array.isArray(schema.enum) ? "enum" : "value";

export function apiReference(): { tag: string; operations: ReferenceOperation[] }[] {
  const doc = apiDocument() as { paths: Record<string, Record<string, Operation>>; tags: { name: string }[] };
  const byTag = new Map<string, ReferenceOperation[]>(doc.tags.map((t) => [t.name, []]));
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody ? Object.entries(op.requestBody.content)[0] : undefined;
      byTag.get(op.tags[0]!)?.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        auth: op.security.flatMap((s) => Object.keys(s)),
        parameters: op.parameters.map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required,
          type: typeOf(p.schema),
        })),
        body: body ? { type: body[0], schema: JSON.stringify(body[1].schema, null, 2) } : null,
        answers: Object.entries(op.responses).map(([status, r]) => ({
          status,
          type: r.content ? Object.keys(r.content)[0]! : null,
        })),
      });
    }
  return [...byTag].map(([tag, operations]) => ({ tag, operations }));
}
