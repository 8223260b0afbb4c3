import { z } from "zod";
import { reauthFields } from "../auth/account-schemas";
import { type Issue, issueValues } from "../i18n/message";
import { CONFIG_KEYS, type ConfigKey, SYSTEM_CONFIG } from "./config-keys";

// One parser for the system section of the Settings form, usable in the browser and on the server.

export type SettingsChange =
  | { key: ConfigKey; kind: "set"; value: string }
  | { key: ConfigKey; kind: "reset" };

/** The re-authentication a super admin's change needs (assertReauthenticated); blank = not entered. */
export type SettingsReauth = { password?: string; code?: string };

/** Refused fields carry zod's issue (its message a key), said by whoever answers (sayIssue). */
export type SettingsParse =
  | { ok: true; changes: SettingsChange[]; reauth: SettingsReauth }
  | { ok: false; fieldErrors: Partial<Record<ConfigKey | ReauthField, Issue>> };

const INVALID: Issue = { message: "validation.invalid" };

type ReauthField = keyof typeof reauthFields;
const reauthSchema = z.object(reauthFields);

/** The password and code fields, by the same schema as the browser's (systemSettingsSchema). */
function parseReauth(
  form: FormData | URLSearchParams,
): { ok: true; reauth: SettingsReauth } | { ok: false; fieldErrors: Partial<Record<ReauthField, Issue>> } {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(reauthFields)) {
    const value = form.get(key);
    if (value !== null) raw[key] = value;
  }
  const parsed = reauthSchema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors: Partial<Record<ReauthField, Issue>> = {};
    for (const issue of parsed.error.issues) {
      const key = issue.path[0] as ReauthField;
      fieldErrors[key] ??= issue;
    }
    return { ok: false, fieldErrors };
  }
  return {
    ok: true,
    reauth: {
      password: parsed.data.currentPassword || undefined,
      code: parsed.data.reauthCode || undefined,
    },
  };
}

const resetKey = z.enum(CONFIG_KEYS as [ConfigKey, ...ConfigKey[]]);

/**
 * Blank secret = keep the stored one (it is never sent to the browser, so the field starts empty).
 * Blank plain value = no database value, so the environment applies again.
 * `reset=KEY` removes the database value of that key.
 */
export function parseSettingsForm(form: FormData | URLSearchParams): SettingsParse {
  const proof = parseReauth(form);
  if (!proof.ok) return proof;
  const { reauth } = proof;
  const reset = form.get("reset");
  if (reset !== null) {
    const key = resetKey.safeParse(reset);
    if (!key.success) return { ok: false, fieldErrors: {} };
    return { ok: true, changes: [{ key: key.data, kind: "reset" }], reauth };
  }
  const changes: SettingsChange[] = [];
  const fieldErrors: Partial<Record<ConfigKey, Issue>> = {};
  for (const key of CONFIG_KEYS) {
    const raw = form.get(key);
    if (raw === null) continue; // not on this form
    if (typeof raw !== "string") {
      fieldErrors[key] = INVALID;
      continue;
    }
    if (raw.trim() === "") {
      if (!SYSTEM_CONFIG[key].secret) changes.push({ key, kind: "reset" });
      continue;
    }
    const parsed = SYSTEM_CONFIG[key].schema.safeParse(raw);
    if (parsed.success) changes.push({ key, kind: "set", value: parsed.data });
    else fieldErrors[key] = parsed.error.issues[0] ?? INVALID;
  }
  return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors } : { ok: true, changes, reauth };
}

/**
 * The system section's fields for the browser's checks (conform): each one blank, or valid by its
 * setting's own schema. The same rules as parseSettingsForm, which the action answers with.
 * `currentPassword` or `reauthCode` is asked only for a super admin's change (the server decides).
 */
export const systemSettingsSchema = z
  .object(
    Object.fromEntries(
      CONFIG_KEYS.map((key) => [
        key,
        z
          .string()
          .optional()
          .superRefine((value, ctx) => {
            if (!value || value.trim() === "") return;
            const parsed = SYSTEM_CONFIG[key].schema.safeParse(value);
            const issue = parsed.success ? undefined : (parsed.error.issues[0] ?? INVALID);
            if (issue) ctx.addIssue({ code: "custom", message: issue.message, params: issueValues(issue) });
          }),
      ]),
    ) as Record<ConfigKey, z.ZodOptional<z.ZodString>>,
  )
  .extend(reauthFields);

/** A session handle as sent; one that names no session of the caller's is answered as already ended. */
export const revokeSessionSchema = z.object({ session: z.string().max(200).catch("") });
