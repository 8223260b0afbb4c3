import { createHash, randomBytes, randomUUID } from "node:crypto";
import type ipaddr from "ipaddr.js";
import { createCookie, type RouterContextProvider } from "react-router";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { baseUrl, secureCookies } from "../env.server";
import { closeStreamsOf } from "../events/stream.server";
import { parseAddress } from "../http/cidr";
import { clientIp, userAgent } from "../http/request-info.server";
import { describeUserAgent, userAgentFamily } from "../http/user-agent";
import { tFor } from "../i18n/i18n.server";
import { intlLocale } from "../i18n/options";
import { mailLanguage } from "../mail/mail-language.server";
import { sendSignInAlertEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { getSystemConfig } from "../system-settings/system-config.server";
import { revokeAllApiTokens } from "./api-tokens.server";
import { requestPasswordReset } from "./password-reset.server";
import { endSessions } from "./session-end.server";
import { consumeToken, inspectToken, issueToken, type TokenProblem } from "./tokens.server";

// New sign-in alerts (decision 035). The first device of an account is recorded silently, so a new
// account, or one from before this feature, is not alarmed.

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

const DAY_MS = 24 * 60 * 60 * 1000;

const deviceCookie = () =>
  createCookie("__device", {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies(),
    path: "/",
    maxAge: 400 * 24 * 60 * 60, // the longest a browser keeps a cookie
  });

const hash = (value: string) => createHash("sha256").update(value).digest("hex");

async function deviceValue(request: Request): Promise<string | null> {
  const value = await deviceCookie().parse(request.headers.get("Cookie"));
  return typeof value === "string" && /^[\w-]{43}$/.test(value) ? value : null;
}

async function deviceHashOf(request: Request): Promise<string | null> {
  const value = await deviceValue(request);
  return value ? hash(value) : null;
}

export function networkOf(ip: string): string {
  const address = parseAddress(ip);
  if (!address) return ip;
  if (address.kind() === "ipv4") {
    const [a, b, c] = (address as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (address as ipaddr.IPv6).parts.slice(0, 3).map((p) => p.toString(16));
  return `${parts.join(":")}::/48`;
}

async function alertsRequired(): Promise<boolean> {
  return (await getSystemConfig("SIGN_IN_ALERTS")) === "required";
}

/** Returns the device cookie to set (renewed on every sign-in). */
export async function noteSignIn(userId: string, args: Args): Promise<string[]> {
  try {
    return await recordDevice(userId, args);
  } catch (error) {
    // The session exists: a failure here must not turn the sign-in into an error page.
    console.error("[sign-in alerts] could not record the device:", error);
    return [];
  }
}

async function recordDevice(userId: string, args: Args): Promise<string[]> {
  const value = (await deviceValue(args.request)) ?? randomBytes(32).toString("base64url");
  const deviceHash = hash(value);
  const agent = userAgent(args.request);
  const family = userAgentFamily(agent);
  const ip = clientIp(args.context);
  const network = networkOf(ip);
  const ts = now();
  const devices = await db()
    .selectFrom("known_device")
    .select(["id", "device_hash", "ua_family", "network", "alerted_at"])
    .where("user_id", "=", userId)
    .execute();
  const setCookie = [await deviceCookie().serialize(value)];
  const byCookie = devices.find((d) => d.device_hash === deviceHash);
  // A known family on a known network is known too, but never handed this cookie (a network neighbour could take it over).
  const known = byCookie ?? devices.find((d) => d.ua_family === family && d.network === network);
  if (known) {
    await db()
      .updateTable("known_device")
      .set(byCookie ? { user_agent: agent, last_seen_at: ts } : { last_seen_at: ts })
      .where("id", "=", known.id)
      .execute();
    return setCookie;
  }
  const id = randomUUID();
  await db()
    .insertInto("known_device")
    .values({
      id,
      user_id: userId,
      device_hash: deviceHash,
      ua_family: family,
      user_agent: agent,
      network,
      first_seen_at: ts,
      last_seen_at: ts,
    })
    .execute();
  if (devices.length === 0) return setCookie;
  const user = await db()
    .selectFrom("user")
    .select(["id", "email", "name", "locale", "sign_in_alerts"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const wanted = user.sign_in_alerts === 1 || (await alertsRequired());
  // A cookie-less browser signing in again and again is one device, not many.
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const recent = await db()
    .selectFrom("known_device")
    .select("id")
    .where("user_id", "=", userId)
    .where("alerted_at", ">", since)
    .where((eb) =>
      eb.or([
        eb("device_hash", "=", deviceHash),
        eb.and([eb("ua_family", "=", family), eb("network", "=", network)]),
      ]),
    )
    .executeTakeFirst();
  const alert = wanted && !recent;
  if (alert) {
    await db().updateTable("known_device").set({ alerted_at: ts }).where("id", "=", id).execute();
    const token = await issueToken({ kind: "not-me", userId, data: { deviceId: id } });
    const language = await mailLanguage(args, user.locale);
    // Not awaited: a slow mail provider must not hold the sign-in.
    void trySend(args, { type: "sign-in-alert", to: user.email }, () =>
      sendSignInAlertEmail({
        to: user.email,
        name: user.name,
        notMeUrl: `${baseUrl()}/account/not-me?token=${encodeURIComponent(token)}`,
        when: `${new Intl.DateTimeFormat(intlLocale(language), { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(new Date(ts))} UTC`,
        device: describeUserAgent(agent, tFor(language)).device,
        network,
        ip,
        language,
      }),
    );
  }
  await audit(args, {
    action: "auth.login.new_device",
    actor: { id: user.id, email: user.email },
    target: { type: "user", id: user.id },
    details: { device: describeUserAgent(agent).device, network, alerted: alert },
  });
  return setCookie;
}

type KnownDevice = {
  id: string;
  device: string;
  network: string;
  firstSeenAt: string;
  lastSeenAt: string;
  current: boolean;
};

export async function listKnownDevices(
  userId: string,
  request: Request,
  t = tFor("en"),
): Promise<KnownDevice[]> {
  const current = await deviceHashOf(request);
  const rows = await db()
    .selectFrom("known_device")
    .select(["id", "device_hash", "user_agent", "network", "first_seen_at", "last_seen_at"])
    .where("user_id", "=", userId)
    .orderBy("last_seen_at", "desc")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    device: describeUserAgent(r.user_agent, t).device,
    network: r.network,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    current: r.device_hash === current,
  }));
}

/** The next sign-in from it is new again. */
export async function forgetDevice(actor: { id: string; email: string }, id: string, origin: AuditOrigin) {
  const gone = await db()
    .deleteFrom("known_device")
    .where("id", "=", id)
    .where("user_id", "=", actor.id)
    .executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0) throw new NotFound("auth.deviceGone");
  await audit(origin, { action: "account.device.forget", actor, target: { type: "user", id: actor.id } });
}

export async function signInAlertsOf(userId: string): Promise<{ on: boolean; required: boolean }> {
  const [row, required] = await Promise.all([
    db().selectFrom("user").select("sign_in_alerts").where("id", "=", userId).executeTakeFirst(),
    alertsRequired(),
  ]);
  return { on: row?.sign_in_alerts === 1, required };
}

export async function setSignInAlerts(
  actor: { id: string; email: string },
  on: boolean,
  origin: AuditOrigin,
) {
  if (!on && (await alertsRequired())) throw new RuleViolation("auth.signInAlertsRequired");
  await db()
    .updateTable("user")
    .set({ sign_in_alerts: on ? 1 : 0 })
    .where("id", "=", actor.id)
    .execute();
  await audit(origin, {
    action: "account.sign_in_alerts",
    actor,
    target: { type: "user", id: actor.id },
    details: { on },
  });
}

export async function notMeLinkProblem(raw: unknown): Promise<TokenProblem | null> {
  const check = await inspectToken(["not-me"], raw);
  return check.ok ? null : check.reason;
}

class LinkRefused extends Error {
  constructor(readonly reason: TokenProblem) {
    super(reason);
  }
}

/** "This wasn't me": sessions end and API tokens are revoked in one transaction; single use. */
export async function reportNotMe(
  origin: AuditOrigin,
  raw: unknown,
): Promise<{ ok: true; email: string } | { ok: false; reason: TokenProblem }> {
  let user: { id: string; email: string } | undefined;
  try {
    await endSessionsOfTokenHolder(origin, raw, (u) => {
      user = u;
    });
  } catch (error) {
    if (error instanceof LinkRefused) return { ok: false, reason: error.reason };
    throw error;
  }
  const who = user!;
  closeStreamsOf(who.id);
  await requestPasswordReset(origin, who.email);
  return { ok: true, email: who.email };
}

async function endSessionsOfTokenHolder(
  origin: AuditOrigin,
  raw: unknown,
  found: (user: { id: string; email: string }) => void,
) {
  const check = await inspectToken(["not-me"], raw);
  if (!check.ok || !check.token.userId) throw new LinkRefused(check.ok ? "invalid" : check.reason);
  const userId = check.token.userId;
  await endSessions({ userId }, async (trx) => {
    const spent = await consumeToken(["not-me"], raw, trx);
    if (!spent.ok) throw new LinkRefused(spent.reason);
    const user = await trx
      .selectFrom("user")
      .select(["id", "email"])
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    const revoked = await revokeAllApiTokens(userId, trx);
    const deviceId = spent.token.data.deviceId;
    if (typeof deviceId === "string")
      await trx.deleteFrom("known_device").where("id", "=", deviceId).where("user_id", "=", userId).execute();
    await audit(
      origin,
      {
        action: "account.not_me",
        actor: user,
        target: { type: "user", id: userId },
        details: { apiTokensRevoked: revoked },
      },
      trx,
    );
    found(user);
  });
}
