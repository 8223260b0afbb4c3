import fc from "fast-check";
import type { Pools } from "./fixtures";
import { ANY_INTENT, type FuzzTarget, formIntent, query } from "./target";
import { either, ids, names, oneOf, segment, text } from "./values";

// Single sign-on (app/auth/sso-*.ts): the providers page and the two public sign-in steps. The
// loopback issuers below are refused on save (not public, app/http/outbound.server.ts) unless the
// run allows loopback; a provider the fuzz manages to create points at a closed loopback port, so
// starting a sign-in with it fails fast ("unavailable") rather than reaching out.

const SSO = "routes/dashboard.settings.sso";
const anon = { caller: "anon" as const };
const slugs = either(fc.constantFrom("fuzz", "corp", "Fuzz Idp", "-x-"));
const slugPath = (suffix: string) => (p: Pools) =>
  fc.oneof(slugs.map(encodeURIComponent), segment(p.tasks)).map((s) => `/auth/oidc/${s}${suffix}`);
const provider = (p: Pools) => ({
  name: names,
  slug: slugs,
  issuer: either(
    fc.constantFrom("http://127.0.0.1:9", "https://127.0.0.1:9/", "http://evil.example", "javascript:x"),
  ),
  clientId: names,
  clientSecret: either(fc.constantFrom("fuzz-secret", "")),
  domains: either(fc.constantFrom("fuzz.example", "a.example, b.example", "@x", ",")),
  roleId: ids(p.roles),
  passwordAllowed: oneOf(["on", ""]),
});

export const SSO_TARGETS: FuzzTarget[] = [
  query(SSO, "/dashboard/settings/sso"),
  formIntent(SSO, "/dashboard/settings/sso", "create-provider", provider),
  formIntent(SSO, "/dashboard/settings/sso", "update-provider", (p) => ({ ...provider(p), id: ids([]) })),
  formIntent(SSO, "/dashboard/settings/sso", "delete-provider", () => ({ id: ids([]) })),
  formIntent(SSO, "/dashboard/settings/sso", ANY_INTENT, () => ({ id: text })),
  query("routes/auth.oidc.$provider", slugPath(""), () => ({ redirectTo: text }), anon),
  query(
    "routes/auth.oidc.$provider.callback",
    slugPath("/callback"),
    () => ({ code: text, state: text, iss: text, error: text }),
    anon,
  ),
];
