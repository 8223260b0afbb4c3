import fc from "fast-check";
import type { Pools } from "./fixtures";
import { type FieldSpec, FORM_ENCODINGS, fields, JSON_ENCODINGS, type Sent, SIGNATURES } from "./requests";
import type { Table } from "./snapshot";
import { text } from "./values";

// One row of the fuzz table: a route, what it is sent, by whom, and which tables a refusal of it
// may write besides the ones every route may (test/fuzz/snapshot.ts).

export type CallerKind = "admin" | "guest" | "anon";

export type FuzzTarget = {
  route: string;
  /** "GET" for a loader, "POST" for an action (sent also as PUT/DELETE to resource routes). */
  method: "GET" | "POST";
  /** The intent exercised; "*" is an unknown or missing one. */
  intent?: string;
  request(p: Pools): fc.Arbitrary<Sent>;
  /** The caller most runs use; the others get a few runs each. */
  caller?: CallerKind;
  /** A fresh session for every run (signing out ends it). */
  freshSession?: boolean;
  mayWrite?: Table[];
  runs?: number;
};

export const ANY_INTENT = "*";

const withData = (path: fc.Arbitrary<string>) =>
  fc.tuple(path, fc.boolean()).map(([p, data]) => (!data ? p : p === "/" ? "/_root.data" : `${p}.data`));

const staticPath = (path: string | ((p: Pools) => fc.Arbitrary<string>)) =>
  typeof path === "string" ? () => fc.constant(path) : path;

/** A page action's intent: a form body (sometimes not a form at all), to the page or its `.data`. */
export function formIntent(
  route: string,
  path: string | ((p: Pools) => fc.Arbitrary<string>),
  intent: string | undefined,
  spec: (p: Pools) => FieldSpec = () => ({}),
  extra: Partial<FuzzTarget> = {},
): FuzzTarget {
  const pathOf = staticPath(path);
  const intentValue = intent === ANY_INTENT ? text : intent === undefined ? undefined : fc.constant(intent);
  return {
    route,
    method: "POST",
    intent,
    request: (p) =>
      fc.record({
        method: fc.constant("POST" as const),
        path: withData(pathOf(p)),
        encoding: FORM_ENCODINGS,
        fields: fields(spec(p), intentValue),
      }),
    ...extra,
  };
}

/** A JSON endpoint (or one reached with any method): JSON mostly, and everything else too. */
export function apiCall(
  route: string,
  path: string | ((p: Pools) => fc.Arbitrary<string>),
  spec: (p: Pools) => FieldSpec = () => ({}),
  extra: Partial<FuzzTarget> & { signed?: boolean; verb?: "POST" | "PATCH" | "PUT" } = {},
): FuzzTarget {
  const pathOf = staticPath(path);
  const { signed, verb = "POST", ...rest } = extra;
  return {
    route,
    method: "POST",
    request: (p) =>
      fc.record({
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant<"POST" | "PATCH" | "PUT">(verb) },
          {
            weight: 1,
            arbitrary: fc.constantFrom("POST" as const, "PUT" as const, "PATCH" as const, "DELETE" as const),
          },
        ),
        path: pathOf(p),
        encoding: JSON_ENCODINGS,
        fields: fields(spec(p)),
        ...(signed ? { signature: SIGNATURES } : {}),
      }),
    ...rest,
  };
}

/** A loader: the page (or its `.data`) with hostile query parameters. */
export function query(
  route: string,
  path: string | ((p: Pools) => fc.Arbitrary<string>),
  spec: (p: Pools) => FieldSpec = () => ({}),
  extra: Partial<FuzzTarget> = {},
): FuzzTarget {
  const pathOf = staticPath(path);
  const resource = route.startsWith("routes/api.");
  return {
    route,
    method: "GET",
    request: (p) =>
      fc
        .record({
          path: resource ? pathOf(p) : withData(pathOf(p)),
          fields: fields(spec(p)),
        })
        .map(({ path, fields }) => {
          const search = new URLSearchParams(fields.map(([k, v]) => [k, String(v)])).toString();
          const data = path.endsWith(".data") ? `_routes=${encodeURIComponent(route)}&` : "";
          return { method: "GET" as const, path: `${path}?${data}${search}` };
        }),
    runs: 10,
    ...extra,
  };
}
