import { createHash } from "node:crypto";
import { type ScimPatchOperation, type ScimResource, scimPatch } from "scim-patch";
import { ScimError } from "./scim-error";
import { SCIM, type ScimPatchInput } from "./scim-schema";

// What Users and Groups share: paging (RFC 7644 §3.4.2.4), list answers, versions (ETags) and
// PATCH operations in the form scim-patch reads.

export type Page = { startIndex: number; count: number };

const MAX_COUNT = 200;

/** startIndex is 1-based (below 1 means 1); count defaults to and is capped at MAX_COUNT. */
export function pageOf(params: URLSearchParams): Page {
  const number = (name: string) => {
    const raw = params.get(name);
    if (raw === null || raw === "") return null;
    const value = Number(raw);
    if (!Number.isInteger(value)) throw new ScimError(400, `${name} must be an integer.`, "invalidValue");
    return value;
  };
  const startIndex = Math.max(1, number("startIndex") ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, number("count") ?? MAX_COUNT));
  return { startIndex, count };
}

export const PAGE_LIMIT = MAX_COUNT;

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

/**
 * The resource with the operations applied by scim-patch (a copy; op in lower case, as Entra sends
 * "Replace"). What comes back is checked by the resource's schema, like a PUT's body.
 */
export function applyPatch(resource: PatchedResource, patch: ScimPatchInput): unknown {
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
