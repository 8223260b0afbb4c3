import { createHash } from "node:crypto";
import { type ScimPatchOperation, type ScimResource, scimPatch } from "scim-patch";
import { isHostileKey, jsonProblem } from "../security/client-keys";
import { ScimError } from "./scim-error";
import { SCIM, type ScimPatchInput } from "./scim-schema";

// What Users and Groups share: paging (RFC 7644 §3.4.2.4), list answers, versions (ETags) and
// PATCH operations in the form scim-patch reads.

export type Page = { startIndex: number; count: number };

const MAX_COUNT = 200;

/** Paging numbers travel as 32-bit integers in SCIM clients; anything past that is no page. */
const INT32 = /^[+-]?\d{1,10}$/;
const INT32_MAX = 2 ** 31 - 1;

/**
 * startIndex is 1-based (below 1 means 1, RFC 7644 §3.4.2.4); count defaults to and is capped at
 * MAX_COUNT (negative means 0). Either outside a 32-bit integer (1e300, NaN, 1.5) is 400
 * invalidValue before it reaches SQL, where it was a datatype mismatch (issue 34).
 */
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

/**
 * The count of everything the filter matches and one page of it, read side by side (a page of 0
 * reads no rows): Users and Groups page the same way, over different tables.
 */
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

/** A weak ETag of the resource's content: any change to what the directory reads changes it. */
export function versionOf(body: unknown): string {
  return `W/"${createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 22)}"`;
}

/**
 * Entra removes members as `{op: "Remove", path: "members", value: [{value: id}]}`; scim-patch
 * matches such values whole (display, $ref and all), so each becomes `members[value eq "id"]`.
 */
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

/** The path with the quoted values of its filters emptied: `emails[value eq "prototype@corp.com"]` compares that text, never walks it. */
function unquoted(path: string): string {
  return path.replace(/\[[^\]]*\]/g, (filter) => filter.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

/**
 * The resource with the operations applied by scim-patch (a copy; op in lower case, as Entra sends
 * "Replace"). What comes back is checked by the resource's schema, like a PUT's body.
 */
export function applyPatch(resource: PatchedResource, patch: ScimPatchInput): unknown {
  // scim-patch walks paths and value keys as given (`__proto__.x`, `constructor.prototype.x`):
  // each is vetted here first, whoever calls (issue 34).
  for (const { path, value } of patch.Operations) {
    if (path !== undefined && isHostileKey(unquoted(path)))
      throw new ScimError(400, "The path names no attribute this server has.", "invalidPath");
    if (jsonProblem(value) !== null)
      throw new ScimError(400, "The value names no attribute this server has.", "invalidValue");
  }
  const operations = patch.Operations.flatMap(normalised);
  // scim-patch types meta's times as Dates; the resource carries them as sent (ISO strings).
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
