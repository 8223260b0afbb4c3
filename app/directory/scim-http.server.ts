import { hasNoNul } from "../../db/nul";
import type { AuditOrigin } from "../audit/audit.server";
import { RuleViolation } from "../domain-errors";
import { BodyTooLarge, readBodyText } from "../http/body.server";
import { SCIM_BODY_LIMIT } from "../http/body-limits";
import { tooManyRequestsInit } from "../http/responses";
import { parseClientJson } from "../security/client-keys";
import { hit } from "../security/rate-limit.server";
import { directoryActor, directoryForToken, noteDirectoryUse } from "./directories.server";
import { resourceTypes, schemas, serviceProviderConfig } from "./scim-discovery";
import { ScimError, scimErrorResponse, scimJson } from "./scim-error";
import {
  createScimGroup,
  deleteScimGroup,
  getScimGroup,
  listScimGroups,
  patchScimGroup,
  replaceScimGroup,
} from "./scim-groups.server";
import { SCIM_ROOT } from "./scim-paths";
import { pageOf } from "./scim-resource";
import { scimPatchInput } from "./scim-schema";
import {
  createScimUser,
  deleteScimUser,
  getScimUser,
  listScimUsers,
  patchScimUser,
  replaceScimUser,
} from "./scim-users.server";
import type { ScimContext } from "./scope.server";

// /scim/v2/*: one bearer token per directory, its rate limit, then the resource the path names.
// Every answer, refusals included, is application/scim+json in RFC 7644's shapes.

async function jsonOf(request: Request): Promise<unknown> {
  let text: string;
  try {
    text = await readBodyText(request, SCIM_BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new ScimError(413, "The request body is too large.");
    throw error;
  }
  const parsed = parseClientJson(text);
  if (!parsed.ok) {
    if (parsed.problem === "hostileKey")
      throw new ScimError(400, "The body names no attribute this server has.", "invalidValue");
    const detail = parsed.problem === "tooDeep" ? "The body is nested too deeply." : "The body must be JSON.";
    throw new ScimError(400, detail, "invalidSyntax");
  }
  // PostgreSQL cannot store or compare a NUL character; no directory attribute holds one. The
  // recursion is bounded: parseClientJson refused anything deeper than MAX_JSON_DEPTH.
  if (!nulFree(parsed.value)) throw new ScimError(400, "The body holds a NUL character.", "invalidValue");
  return parsed.value;
}

function nulFree(value: unknown): boolean {
  if (typeof value === "string") return hasNoNul(value);
  if (Array.isArray(value)) return value.every(nulFree);
  if (value && typeof value === "object")
    return Object.entries(value).every(([k, v]) => hasNoNul(k) && nulFree(v));
  return true;
}

function patchOf(body: unknown) {
  const parsed = scimPatchInput.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ScimError(400, `${issue.path.join(".") || "body"}: ${issue.message}`, "invalidSyntax");
}

function withVersion(resource: { meta: { version: string; location: string } }, status = 200) {
  const headers: Record<string, string> = { ETag: resource.meta.version };
  if (status === 201) headers.Location = resource.meta.location;
  return scimJson(resource, { status, headers });
}

function notAllowed(allow: string) {
  return scimErrorResponse(405, "This method is not supported here.", undefined, { Allow: allow });
}

async function route(ctx: ScimContext, request: Request, segments: string[]): Promise<Response> {
  const method = request.method.toUpperCase();
  const url = new URL(request.url);
  const [collection, id, ...rest] = segments;
  if (rest.length) throw new ScimError(404, "There is nothing at this path.");
  const ifMatch = request.headers.get("If-Match");
  switch (collection) {
    case "ServiceProviderConfig":
      if (id) throw new ScimError(404, "There is nothing at this path.");
      return method === "GET" ? scimJson(serviceProviderConfig(ctx.baseUrl)) : notAllowed("GET");
    case "ResourceTypes":
    case "Schemas": {
      if (method !== "GET") return notAllowed("GET");
      const list: { id: string }[] =
        collection === "Schemas" ? schemas(ctx.baseUrl) : resourceTypes(ctx.baseUrl);
      if (!id) return scimJson({ ...pageLike(list) });
      const one = list.find((r) => r.id === id);
      if (!one)
        throw new ScimError(
          404,
          `There is no ${collection === "Schemas" ? "schema" : "resource type"} ${id}.`,
        );
      return scimJson(one);
    }
    case "Users":
      if (!id) {
        if (method === "GET")
          return scimJson(await listScimUsers(ctx, pageOf(url.searchParams), url.searchParams.get("filter")));
        if (method === "POST") return withVersion(await createScimUser(ctx, await jsonOf(request)), 201);
        return notAllowed("GET, POST");
      }
      if (method === "GET") return withVersion(await getScimUser(ctx, id));
      if (method === "PUT")
        return withVersion(await replaceScimUser(ctx, id, await jsonOf(request), ifMatch));
      if (method === "PATCH")
        return withVersion(await patchScimUser(ctx, id, patchOf(await jsonOf(request)), ifMatch));
      if (method === "DELETE") {
        await deleteScimUser(ctx, id);
        return new Response(null, { status: 204 });
      }
      return notAllowed("GET, PUT, PATCH, DELETE");
    case "Groups": {
      const members = !/\bmembers\b/i.test(url.searchParams.get("excludedAttributes") ?? "");
      if (!id) {
        if (method === "GET")
          return scimJson(
            await listScimGroups(ctx, pageOf(url.searchParams), url.searchParams.get("filter"), { members }),
          );
        if (method === "POST") return withVersion(await createScimGroup(ctx, await jsonOf(request)), 201);
        return notAllowed("GET, POST");
      }
      if (method === "GET") return withVersion(await getScimGroup(ctx, id, { members }));
      if (method === "PUT")
        return withVersion(await replaceScimGroup(ctx, id, await jsonOf(request), ifMatch));
      if (method === "PATCH")
        return withVersion(await patchScimGroup(ctx, id, patchOf(await jsonOf(request)), ifMatch));
      if (method === "DELETE") {
        await deleteScimGroup(ctx, id);
        return new Response(null, { status: 204 });
      }
      return notAllowed("GET, PUT, PATCH, DELETE");
    }
    default:
      throw new ScimError(404, "There is nothing at this path.");
  }
}

function pageLike<T>(resources: T[]) {
  return {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

function segmentsOf(pathname: string): string[] {
  let segments: string[];
  try {
    segments = pathname.slice(SCIM_ROOT.length).split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new ScimError(404, "There is nothing at this path.");
  }
  if (!segments.every(hasNoNul)) throw new ScimError(404, "There is nothing at this path.");
  return segments;
}

function bearerOf(request: Request): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("Authorization") ?? "");
  return match ? match[1]! : null;
}

/** Answers a request under /scim/v2 (`origin` carries the request and its context for audit rows). */
export async function handleScim(origin: AuditOrigin & { request: Request }): Promise<Response> {
  const { request } = origin;
  const url = new URL(request.url);
  const token = bearerOf(request);
  const directory = token ? await directoryForToken(token) : null;
  if (!directory)
    return scimErrorResponse(
      401,
      "A valid directory token is required (Authorization: Bearer scim_…).",
      undefined,
      {
        "WWW-Authenticate": 'Bearer realm="scim"',
      },
    );
  const limit = await hit("scimPerDirectory", directory.id);
  if (!limit.ok) {
    const { status, headers } = tooManyRequestsInit(limit.retryAfterSeconds);
    return scimErrorResponse(status, "Too many requests from this directory: slow down.", "tooMany", headers);
  }
  await noteDirectoryUse(directory.id);
  const ctx: ScimContext = {
    directory,
    actor: await directoryActor(directory),
    origin,
    baseUrl: `${url.origin}${SCIM_ROOT}`,
  };
  try {
    if (![...url.searchParams.values()].every(hasNoNul))
      throw new ScimError(400, "A parameter holds a NUL character.", "invalidValue");
    return await route(ctx, request, segmentsOf(url.pathname));
  } catch (error) {
    if (error instanceof ScimError) return scimErrorResponse(error.status, error.message, error.scimType);
    if (error instanceof RuleViolation) return scimErrorResponse(403, error.message);
    throw error;
  }
}
