import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// A real OpenID Connect identity provider (oidc-provider) on loopback, for the single sign-on
// tests (vitest and Playwright). Its login needs no form: whoever is `idp.user` when the browser
// (or the test's fetch) reaches the interaction is signed in at once, with the claims given there.
//
//   const idp = await startIdp({ redirectUris: ["http://localhost:3000/auth/oidc/corp/callback"] });
//   idp.user = { sub: "u1", email: "ann@corp.test", email_verified: true };
//   idp.issuer, idp.clientId, idp.clientSecret
//   await idp.close();

// oidc-provider ships no types; these are the few parts used here.
type GrantLike = { addOIDCScope(scope: string): void; save(): Promise<string> };
type IdpContext = {
  oidc: {
    client?: { clientId: string };
    session?: { accountId?: string };
    provider: { Grant: new (init: { clientId: string; accountId: string }) => GrantLike };
  };
};

export type IdpUser = { sub: string; email?: string; email_verified?: boolean; name?: string };

export type Idp = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next interaction signs in as. */
  user: IdpUser;
  close(): Promise<void>;
};

export async function startIdp(opts: { redirectUris: string[]; port?: number }): Promise<Idp> {
  const { default: Provider } = await import("oidc-provider");
  const clientId = "dashboard-test";
  const clientSecret = "idp-client-secret-for-tests-only";
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const state: { user: IdpUser } = { user: { sub: "nobody" } };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [{ ...key, use: "sig", alg: "RS256" }] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ["idp-cookie-key-for-tests-only"] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // No consent screen: every client gets what it asked for.
    async loadExistingGrant(ctx: IdpContext) {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    async findAccount(_ctx: unknown, sub: string) {
      const user = state.user.sub === sub ? state.user : { sub };
      return { accountId: sub, claims: async () => ({ ...user }) };
    },
  });
  const callback = provider.callback();

  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.url?.startsWith("/interaction/")) {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: state.user.sub } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      callback(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });

  return {
    issuer,
    clientId,
    clientSecret,
    get user() {
      return state.user;
    },
    set user(value) {
      state.user = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Follows a sign-in the way a browser would, from the app's answer to the start URL through the
 * identity provider, and stops at the first redirect back to the app (`appOrigin`): returns that
 * callback URL. Cookies the provider sets are kept for the provider's own requests only.
 */
export async function followToCallback(authorizationUrl: string, appOrigin: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(appOrigin)) return url;
    const res = await fetch(url, {
      redirect: "manual",
      headers: { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
    const location = res.headers.get("Location");
    if (!location)
      throw new Error(`the identity provider stopped at ${url}: ${res.status} ${await res.text()}`);
    url = new URL(location, url).toString();
  }
  throw new Error("too many redirects at the identity provider");
}
