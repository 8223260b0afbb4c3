import { randomUUID } from "node:crypto";
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import type { z } from "zod";
import type { PasskeyChallengeTable } from "../../db/schema";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { APP_NAME } from "../config";
import { db, now } from "../db.server";
import { InvalidInput, NotFound } from "../domain-errors";
import { baseUrl } from "../env.server";
import { clientIp } from "../http/request-info.server";
import { type Message, message } from "../i18n/message";
import { hit } from "../security/rate-limit.server";
import { DISABLED, type LoginFailure, UNVERIFIED } from "./login.server";
import { availabilityOn, type PasskeyAvailability } from "./passkey-availability";
import {
  authenticationResponseSchema,
  type PasskeyView,
  registrationResponseSchema,
} from "./passkey-schemas";
import type { SessionUser } from "./session.server";

// Passkeys (decision 019): the library checks signatures, origin, RP ID, user verification and the
// counter; this module owns the challenges, the stored credentials and the account rules.

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const MAX_PASSKEYS = 20;
export const PASSKEY_FAILED = message("passkeys.signInFailed");

/** BASE_URL decides origin and RP ID. */
export function relyingParty() {
  const url = new URL(baseUrl());
  return { id: url.hostname, origin: url.origin, name: APP_NAME };
}

export function passkeyAvailability(request: Request): PasskeyAvailability {
  return availabilityOn(request.url, relyingParty());
}

function parseJson<S extends z.ZodType>(schema: S, text: string): z.output<S> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The library checks the challenge, origin and type again. */
function clientDataOf(clientDataJSON: string): { challenge: string | null; crossOrigin: boolean } {
  try {
    const data = JSON.parse(isoBase64URL.toUTF8String(clientDataJSON)) as {
      challenge?: unknown;
      crossOrigin?: unknown;
      topOrigin?: unknown;
    };
    const challenge =
      typeof data.challenge === "string" && data.challenge.length <= 512 ? data.challenge : null;
    // This site runs its ceremonies only in its own top-level pages, so any sign of embedding is refused.
    return { challenge, crossOrigin: data.crossOrigin === true || data.topOrigin !== undefined };
  } catch {
    return { challenge: null, crossOrigin: false };
  }
}

async function issueChallenge(
  purpose: PasskeyChallengeTable["purpose"],
  userId: string | null,
  challenge: string,
) {
  await db().deleteFrom("passkey_challenge").where("expires_at", "<=", now()).execute();
  await db()
    .insertInto("passkey_challenge")
    .values({
      challenge,
      purpose,
      user_id: userId,
      expires_at: new Date(Date.now() + CHALLENGE_TTL_MS).toISOString(),
    })
    .execute();
}

/** Of two uses, one wins. */
async function consumeChallenge(
  purpose: PasskeyChallengeTable["purpose"],
  userId: string | null,
  challenge: string | null,
): Promise<boolean> {
  if (!challenge) return false;
  let query = db()
    .deleteFrom("passkey_challenge")
    .where("challenge", "=", challenge)
    .where("purpose", "=", purpose)
    .where("expires_at", ">", now());
  query = userId ? query.where("user_id", "=", userId) : query.where("user_id", "is", null);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function listPasskeys(userId: string): Promise<PasskeyView[]> {
  const rows = await db()
    .selectFrom("passkey")
    .select(["id", "name", "created_at", "last_used_at", "backed_up"])
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    backedUp: r.backed_up === 1,
  }));
}

/** It does not satisfy a role's two-factor requirement (decision 018). */
export async function hasPasskey(userId: string): Promise<boolean> {
  const row = await db().selectFrom("passkey").select("id").where("user_id", "=", userId).executeTakeFirst();
  return Boolean(row);
}

export async function passkeyRegistrationOptions(
  user: SessionUser,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty();
  const existing = await db()
    .selectFrom("passkey")
    .select(["credential_id", "transports"])
    .where("user_id", "=", user.id)
    .execute();
  if (existing.length >= MAX_PASSKEYS)
    throw new InvalidInput("passkeys.limit", "name", { count: MAX_PASSKEYS });
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name || user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    timeout: CHALLENGE_TTL_MS,
    excludeCredentials: existing.map((c) => ({
      id: c.credential_id,
      transports: c.transports ? c.transports.split(",") : undefined,
    })),
    // Discoverable, so the login page needs no address; verified (PIN, biometrics), so it is two factors.
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  await issueChallenge("registration", user.id, options.challenge);
  return options;
}

export async function addPasskey(
  user: SessionUser,
  input: { name: string; response: string },
  origin: AuditOrigin,
) {
  const response = parseJson(registrationResponseSchema, input.response) as RegistrationResponseJSON | null;
  if (!response) throw new InvalidInput("passkeys.unreadable", "form");
  const { challenge, crossOrigin } = clientDataOf(response.response.clientDataJSON);
  if (!(await consumeChallenge("registration", user.id, challenge)))
    throw new InvalidInput("passkeys.expired", "form");
  if (crossOrigin) throw new InvalidInput("passkeys.unverified", "form");
  const rp = relyingParty();
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge!,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(() => null);
  if (!verification?.verified) throw new InvalidInput("passkeys.unverified", "form");
  const { credential, credentialBackedUp } = verification.registrationInfo;
  const taken = await db()
    .selectFrom("passkey")
    .select("id")
    .where("credential_id", "=", credential.id)
    .executeTakeFirst();
  if (taken) throw new InvalidInput("passkeys.duplicate", "form");
  const id = randomUUID();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("passkey")
        .values({
          id,
          user_id: user.id,
          credential_id: credential.id,
          public_key: isoBase64URL.fromBuffer(credential.publicKey),
          counter: credential.counter,
          transports: (credential.transports ?? []).join(","),
          name: input.name,
          backed_up: credentialBackedUp ? 1 : 0,
          created_at: now(),
          last_used_at: null,
        })
        .execute();
      await audit(
        origin,
        {
          action: "account.passkey.add",
          actor: user,
          target: { type: "user", id: user.id },
          details: { passkey: id, name: input.name },
        },
        trx,
      );
    });
  return { id };
}

export async function renamePasskey(
  user: SessionUser,
  input: { id: string; name: string },
  origin: AuditOrigin,
) {
  await db()
    .transaction()
    .execute(async (trx) => {
      const row = await trx
        .selectFrom("passkey")
        .select("name")
        .where("id", "=", input.id)
        .where("user_id", "=", user.id)
        .executeTakeFirst();
      if (!row) throw new NotFound("passkeys.gone");
      await trx.updateTable("passkey").set({ name: input.name }).where("id", "=", input.id).execute();
      await audit(
        origin,
        {
          action: "account.passkey.rename",
          actor: user,
          target: { type: "user", id: user.id },
          details: { passkey: input.id, name: { before: row.name, after: input.name } },
        },
        trx,
      );
    });
}

export async function removePasskey(user: SessionUser, input: { id: string }, origin: AuditOrigin) {
  await db()
    .transaction()
    .execute(async (trx) => {
      const row = await trx
        .deleteFrom("passkey")
        .where("id", "=", input.id)
        .where("user_id", "=", user.id)
        .returning("name")
        .executeTakeFirst();
      if (!row) throw new NotFound("passkeys.gone");
      await audit(
        origin,
        {
          action: "account.passkey.remove",
          actor: user,
          target: { type: "user", id: user.id },
          details: { passkey: input.id, name: row.name },
        },
        trx,
      );
    });
}

export type PasskeySignInOutcome =
  | { ok: true; userId: string }
  | { ok: false; status: 400; message: Message; reason: LoginFailure }
  | { ok: false; status: "rate_limited"; retryAfter: number };

type Limited = { ok: false; status: "rate_limited"; retryAfter: number };

async function spendIpPoint(origin: AuditOrigin, step: string): Promise<Limited | null> {
  const limit = await hit("passkeyPerIp", clientIp(origin.context));
  if (limit.ok) return null;
  await audit(origin, {
    action: "auth.login.rate_limited",
    details: { method: "passkey", scope: "ip", step },
  });
  return { ok: false, status: "rate_limited", retryAfter: limit.retryAfterSeconds };
}

export async function passkeySignInOptions(
  origin: AuditOrigin,
): Promise<{ ok: true; options: PublicKeyCredentialRequestOptionsJSON } | Limited> {
  const limited = await spendIpPoint(origin, "options");
  if (limited) return limited;
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().id,
    userVerification: "required",
    timeout: CHALLENGE_TTL_MS,
  });
  await issueChallenge("authentication", null, options.challenge);
  return { ok: true, options };
}

/** Audited like a password sign-in (method "passkey"), with the account checks a password sign-in makes. */
export async function attemptPasskeySignIn(
  origin: AuditOrigin,
  responseText: string,
): Promise<PasskeySignInOutcome> {
  const limited = await spendIpPoint(origin, "verify");
  if (limited) return limited;
  const fail = async (reason: LoginFailure, why: string, account?: { id: string; email: string }) => {
    await audit(origin, {
      action: "auth.login.failed",
      target: account ? { type: "user", id: account.id } : undefined,
      details: { method: "passkey", reason, why, ...(account ? { email: account.email } : { email: null }) },
    });
    const message = reason === "disabled" ? DISABLED : reason === "unverified" ? UNVERIFIED : PASSKEY_FAILED;
    return { ok: false as const, status: 400 as const, message, reason };
  };
  const response = parseJson(authenticationResponseSchema, responseText) as AuthenticationResponseJSON | null;
  if (!response) return fail("invalid", "unreadable");
  const { challenge, crossOrigin } = clientDataOf(response.response.clientDataJSON);
  if (!(await consumeChallenge("authentication", null, challenge))) return fail("invalid", "challenge");
  if (crossOrigin) return fail("invalid", "cross_origin");
  const stored = await db()
    .selectFrom("passkey")
    .innerJoin("user", "user.id", "passkey.user_id")
    .select([
      "passkey.id as passkeyId",
      "passkey.credential_id",
      "passkey.public_key",
      "passkey.counter",
      "passkey.transports",
      "user.id as userId",
      "user.email",
      "user.status",
      "user.email_verified",
    ])
    .where("passkey.credential_id", "=", response.id)
    .executeTakeFirst();
  if (!stored) return fail("invalid", "unknown_credential");
  const account = { id: stored.userId, email: stored.email };
  const rp = relyingParty();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge!,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    credential: {
      id: stored.credential_id,
      publicKey: isoBase64URL.toBuffer(stored.public_key),
      counter: Number(stored.counter),
      transports: stored.transports ? stored.transports.split(",") : undefined,
    },
  }).catch(() => null);
  if (!verification?.verified) return fail("invalid", "signature", account);
  // Told only after a valid passkey, as a password sign-in tells only after the right password.
  if (stored.status !== "active") return fail("disabled", "disabled", account);
  if (stored.email_verified !== 1) return fail("unverified", "unverified", account);
  const at = now();
  await db()
    .updateTable("passkey")
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: at })
    .where("id", "=", stored.passkeyId)
    .execute();
  await db().updateTable("user").set({ last_login_at: at }).where("id", "=", stored.userId).execute();
  await audit(origin, {
    action: "auth.login.succeeded",
    actor: account,
    target: { type: "user", id: account.id },
    details: { method: "passkey", passkey: stored.passkeyId },
  });
  return { ok: true, userId: stored.userId };
}
