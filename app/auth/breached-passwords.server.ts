import { createHash } from "node:crypto";
import type { RouterContextProvider } from "react-router";
import { InvalidInput } from "../domain-errors";
import { env } from "../env.server";
import { type parseSubmission, refuseField } from "../http/form.server";
import { outboundFetch } from "../http/outbound.server";
import { englishTranslator } from "../i18n/english.server";
import { getT } from "../i18n/i18n.server";
import { say } from "../i18n/message";
import { breachCheck } from "../metrics/metrics.server";
import { getSystemConfig } from "../system-settings/system-config.server";

// Breached passwords (docs/http-contract.md, "Password policy"): the range API's k-anonymity, so
// only the first five hex characters of a password's SHA-1 leave the server. A prefix's answer is
// kept for a day. The service unreachable, slow, redirecting or answering garbage: the check fails
// open (the common-passwords list still applies), with a log line and a metric, within TIMEOUT_MS.

const TIMEOUT_MS = 1_500;
const DAY_MS = 86_400_000;
const MAX_PREFIXES = 5_000;
/** A padded answer is a few thousand lines; far more is not the range API. */
const MAX_BODY = 512 * 1024;
const LINE = /^([0-9A-F]{35}):(\d+)$/;

type BreachMode = "block" | "warn" | "off";
const cache = new Map<string, { suffixes: Set<string>; at: number }>();

async function breachMode(): Promise<BreachMode> {
  const mode = await getSystemConfig("PASSWORD_BREACH_CHECK");
  return mode === "warn" || mode === "off" ? mode : "block";
}

async function rangeOf(prefix: string): Promise<Set<string> | null> {
  const hit = cache.get(prefix);
  if (hit && Date.now() - hit.at < DAY_MS) return hit.suffixes;
  try {
    const response = await outboundFetch(`${env().PWNED_PASSWORDS_URL}${prefix}`, {
      headers: { "Add-Padding": "true", Accept: "text/plain" },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (response.status !== 200) throw new Error(`answered ${response.status}`);
    const text = await response.text();
    if (text.length > MAX_BODY) throw new Error("answered more than a range");
    const suffixes = new Set<string>();
    for (const raw of text.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      const match = LINE.exec(line.toUpperCase());
      if (!match) throw new Error("answered something that is not a range");
      // Padding lines carry a count of 0.
      if (Number(match[2]) > 0) suffixes.add(match[1]!);
    }
    if (cache.size >= MAX_PREFIXES) cache.delete(cache.keys().next().value!);
    cache.set(prefix, { suffixes, at: Date.now() });
    return suffixes;
  } catch (error) {
    breachCheck("unavailable");
    console.warn(`[breached-passwords] the range service failed, the check is skipped: ${String(error)}`);
    return null;
  }
}

/** True or false when the range service answered; null when it did not (the check fails open). */
export async function isBreached(password: string): Promise<boolean | null> {
  const sha1 = createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();
  const range = await rangeOf(sha1.slice(0, 5));
  if (!range) return null;
  const breached = range.has(sha1.slice(5));
  breachCheck(breached ? "breached" : "clean");
  return breached;
}

/**
 * Where a password is chosen (registration, change, reset, invitation): with `block` a breached one
 * is a 400 on `field`; with `warn` it is accepted and the caller says so. Returns whether to warn.
 */
export async function checkNewPassword(password: string, field: string): Promise<{ warn: boolean }> {
  const mode = await breachMode();
  if (mode === "off" || !(await isBreached(password))) return { warn: false };
  if (mode === "block") throw new InvalidInput("auth.passwordBreached", field);
  return { warn: true };
}

/**
 * A page's action: the parsed form's password checked; with `block` a breached one answers as a
 * field error, else whether to warn.
 */
export async function breachedField(
  args: { context?: Readonly<RouterContextProvider> },
  submission: ReturnType<typeof parseSubmission>,
  password: string,
  field = "password",
): Promise<{ refusal: ReturnType<typeof refuseField> } | { refusal: null; warn: boolean }> {
  try {
    return { refusal: null, ...(await checkNewPassword(password, field)) };
  } catch (error) {
    if (!(error instanceof InvalidInput)) throw error;
    const t = args.context ? getT(args.context) : englishTranslator();
    return { refusal: refuseField(submission, field, say(t, error.said)) };
  }
}

/** At sign-in with `block`: a right but breached password leads to a forced change. */
export async function breachedAtSignIn(password: string): Promise<boolean> {
  return (await breachMode()) === "block" && (await isBreached(password)) === true;
}

/** For tests: a fresh cache. */
export function forgetBreachRanges() {
  cache.clear();
}
