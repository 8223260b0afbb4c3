import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, request, run, sessionCookieFor } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import {
  accounts,
  allowPrivate,
  callback,
  expectRefused,
  failures,
  LOOPBACK,
  managerRoleId,
  nextIp,
  root,
  setupSso,
  teardownSso,
  throughProvider,
} from "../../test/support/sso";
import { db, now } from "../db.server";
import { english } from "../i18n/english.server";
import { loader as startLoader } from "../routes/auth.oidc.$provider";
import { action as settingsAction } from "../routes/dashboard.settings.sso/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { encryptSecret } from "../security/secret-box.server";
import { resetDiscoveryCache } from "./sso-flow.server";
import { ssoMessage } from "./sso-messages";
import { ISSUER_NOT_PUBLIC } from "./sso-providers.server";

// Single sign-on reaches public addresses only (app/http/outbound.server.ts): the issuer when
// saved, discovery, and the callback's token request.

beforeAll(setupSso, 60_000);
afterAll(teardownSso);
beforeEach(() => resetRateLimits());

describe("the server fetches only public addresses (OUTBOUND_ALLOW_PRIVATE opens chosen ranges)", () => {
  const save = async (issuer: string) => {
    const cookie = await sessionCookieFor(root.id);
    return run(() =>
      settingsAction(
        args(
          formRequest(
            "/dashboard/settings/sso",
            {
              intent: "create-provider",
              name: "Inside",
              slug: "inside",
              issuer,
              clientId: "inside-client",
              clientSecret: "inside-secret-value",
              domains: "inside.test",
              roleId: managerRoleId,
            },
            { cookie },
          ),
        ),
      ),
    );
  };

  it.each(["https://169.254.169.254", "http://localhost:5432", "https://2130706433", "https://127.1"])(
    "refuses to save the issuer %s, changing nothing",
    async (issuer) => {
      allowPrivate(undefined);
      try {
        const before = await db().selectFrom("oidc_provider").selectAll().execute();
        const out = await save(issuer);
        expect(out.status).toBe(400);
        expect((out.body as { errors: Record<string, string> }).errors).toMatchObject({
          issuer: english(ISSUER_NOT_PUBLIC),
        });
        expect(await db().selectFrom("oidc_provider").selectAll().execute()).toEqual(before);
      } finally {
        allowPrivate(LOOPBACK);
      }
    },
  );

  /** An issuer that counts the requests reaching it and answers every one with 500. */
  async function countingIssuer() {
    let hits = 0;
    const server: Server = createServer((_req, res) => {
      hits++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    return {
      port,
      hits: () => hits,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  /** A provider row as if saved while the name resolved to a public address (DNS rebinding since). */
  async function providerAt(slug: string, issuer: string) {
    const ts = now();
    await db()
      .insertInto("oidc_provider")
      .values({
        id: crypto.randomUUID(),
        slug,
        name: slug,
        issuer,
        client_id: "c",
        client_secret: encryptSecret("s"),
        allowed_domains: JSON.stringify(["rebind.test"]),
        role_id: managerRoleId,
        password_allowed: 1,
        created_at: ts,
        updated_at: ts,
      })
      .execute();
  }

  const start = (slug: string) =>
    run(() => startLoader(args(request(`/auth/oidc/${slug}`), { provider: slug }, context(nextIp()))));

  it("a discovery to a name that resolves to 127.0.0.1 fails when connecting, without the allow-list", async () => {
    const issuer = await countingIssuer();
    try {
      await providerAt("rebound", `http://localhost:${issuer.port}`);
      allowPrivate(undefined);
      resetDiscoveryCache();
      const out = await start("rebound");
      expect(out.headers.get("Location")).toBe("/login?sso=unavailable");
      expect(issuer.hits()).toBe(0);
      expect(await db().selectFrom("oidc_flow").selectAll().execute()).toEqual([]);
    } finally {
      allowPrivate(LOOPBACK);
      await issuer.close();
    }
  });

  it("repeated failures within the cache window make one connection attempt", async () => {
    const issuer = await countingIssuer();
    try {
      await providerAt("flaky", `http://127.0.0.1:${issuer.port}`);
      resetDiscoveryCache();
      for (let i = 0; i < 5; i++)
        expect((await start("flaky")).headers.get("Location")).toBe("/login?sso=unavailable");
      expect(issuer.hits()).toBe(1);
    } finally {
      await issuer.close();
    }
  });

  it("a token request refused by the outbound rule is audited as outbound_refused, and signs no one in", async () => {
    // Discovery ran while loopback was open; the token request meets the rule without it.
    const { callback: url, flowCookie } = await throughProvider({
      sub: "refused-sub",
      email: "refused@corp.test",
      email_verified: true,
    });
    const before = await accounts();
    allowPrivate(undefined);
    try {
      const out = await callback(url, flowCookie);
      await expectRefused(out, "outbound_refused");
      const last = (await failures()).at(-1)!;
      expect(JSON.parse(last.details!)).toEqual({
        method: "oidc",
        provider: "corp",
        reason: "outbound_refused",
        error: "outbound_refused",
      });
      expect(await accounts()).toEqual(before);
    } finally {
      allowPrivate(LOOPBACK);
    }
    // The login page says why, in words an administrator can act on (German in app/locales).
    expect(english(ssoMessage("outbound_refused")!)).toMatch(/public addresses only/);
  });
});
