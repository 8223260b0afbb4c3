import { SCIM } from "./scim-schema";

// Every SCIM refusal in the shape RFC 7644 §3.12 gives it: `status` as a string, `scimType` where
// the RFC names one, a `detail` for the directory's logs (English: its readers are operators).

export type ScimType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue"
  | "invalidVers";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

export function scimJson(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", SCIM_CONTENT_TYPE);
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { ...init, headers });
}

export function scimErrorResponse(
  status: number,
  detail: string,
  scimType?: ScimType,
  headers?: HeadersInit,
) {
  return scimJson(
    { schemas: [SCIM.errorMessage], status: String(status), ...(scimType ? { scimType } : {}), detail },
    { status, headers },
  );
}
