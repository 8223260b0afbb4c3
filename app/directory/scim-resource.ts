import { createHash } from "node:crypto";
import { type ScimPatchOperation, type ScimResource, scimPatch } from "scim-patch";
import { isHostileKey, jsonProblem } from "../security/client-keys";
import { ScimError } from "./scim-error";
import { SCIM, type ScimPatchInput } from "./scim-schema";

export type Page = { startIndex: number; count: number };

const MAX_COUNT = 200;

/** SCIM clients send 32-bit integers; anything past that is no page. */
const INT32 = /^[+-]?\d{1,10}$/;
const INT32_MAX = 2 ** 31 - 1;

/** Outside a 32-bit integer is 400 invalidValue before it reaches SQL (RFC 7644 §3.4.2.4). */
export function pageOf(params: URLSearchParams): Page {
  const number = (name: string) => {
    const raw = params.get(name)?.trim();
    if (raw === undefined || raw === "") return null;
    const value = INT32.test(raw) ? Number(raw) : Number.NaN;
    if (!(Math.abs(value) <= INT32_MAX))
      throw new ScimError(400, `${name} must be an integer of at most 32 bits.`, "invalidValue");
    return value;
  };
  const startIndex = Math.max(1, number("startIndex") ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, number("count") ?? MAX_COUNT));
  return { startIndex, count };
}

export const PAGE_LIMIT = MAX_COUNT;

export async function readPage<R>(
  page: Page,
  count: () => Promise<{ total: number | string | bigint }>,
  rows: (limit: number, offset: number) => Promise<R[]>,
): Promise<{ total: number; rows: R[] }> {
  const [counted, found] = await Promise.all([
    count(),
    page.count === 0 ? Promise.resolve([]) : rows(page.count, page.startIndex - 1),
  ]);
  return { total: Number(counted.total), rows: found };
}

export function listPage<T>(resources: T[], total: number, page: Page) {
  return {
    schemas: [SCIM.list],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

export function versionOf(body: unknown): string {
  return `W/"${createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 22)}"`;
}

/** Entra removes members by value, which scim-patch matches whole, so each becomes `members[value eq "id"]`. */
function normalised(operation: ScimPatchInput["Operations"][number]): ScimPatchOperation[] {
  const op = operation.op.toLowerCase();
  const { path, value } = operation;
  if (op === "remove" && path?.toLowerCase() === "members" && Array.isArray(value))
    return value.map((m) => ({
      op: "remove",
      path: `members[value eq ${JSON.stringify(String((m as { value?: unknown })?.value ?? ""))}]`,
    }));
  return [{ ...operation, op } as ScimPatchOperation];
}

type PatchedResource = {
  schemas: string[];
  meta: { created: string; lastModified: string; location?: string };
};

/** So a filter's quoted text is compared, never walked as a path. */
function unquoted(path: string): string {
  return path.replace(/\[[^\]]*\]/g, (filter) => filter.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

/** Op in lower case, as Entra sends "Replace"; the result is checked by the resource's schema. */
export function applyPatch(resource: PatchedResource, patch: ScimPatchInput): unknown {
  // scim-patch walks paths as given (`__proto__.x`): each is vetted here first.
  for (const { path, value } of patch.Operations) {
    if (path !== undefined && isHostileKey(unquoted(path)))
      throw new ScimError(400, "The path names no attribute this server has.", "invalidPath");
    if (jsonProblem(value) !== null)
      throw new ScimError(400, "The value names no attribute this server has.", "invalidValue");
  }
  const operations = patch.Operations.flatMap(normalised);
  const { meta } = resource;
  const document: ScimResource = {
    ...structuredClone(resource),
    meta: { ...meta, created: new Date(meta.created), lastModified: new Date(meta.lastModified) },
  };
  try {
    return scimPatch(document, operations, {
      mutateDocument: false,
    });
  } catch (error) {
    throw new ScimError(400, (error as Error).message, "invalidPath");
  }
}
