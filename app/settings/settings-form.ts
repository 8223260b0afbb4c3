import { z } from "zod";
import { CONFIG_KEYS, type ConfigKey, SYSTEM_CONFIG } from "./config-keys";

// One parser for the system section of the Settings form, usable in the browser and on the server.

export type SettingsChange =
  | { key: ConfigKey; kind: "set"; value: string }
  | { key: ConfigKey; kind: "reset" };

export type SettingsParse =
  | { ok: true; changes: SettingsChange[] }
  | { ok: false; fieldErrors: Partial<Record<ConfigKey, string>> };

const resetKey = z.enum(CONFIG_KEYS as [ConfigKey, ...ConfigKey[]]);

/**
 * Blank secret = keep the stored one (it is never sent to the browser, so the field starts empty).
 * Blank plain value = no database value, so the environment applies again.
 * `reset=KEY` removes the database value of that key.
 */
export function parseSettingsForm(form: FormData | URLSearchParams): SettingsParse {
  const reset = form.get("reset");
  if (reset !== null) {
    const key = resetKey.safeParse(reset);
    if (!key.success) return { ok: false, fieldErrors: {} };
    return { ok: true, changes: [{ key: key.data, kind: "reset" }] };
  }
  const changes: SettingsChange[] = [];
  const fieldErrors: Partial<Record<ConfigKey, string>> = {};
  for (const key of CONFIG_KEYS) {
    const raw = form.get(key);
    if (raw === null) continue; // not on this form
    if (typeof raw !== "string") {
      fieldErrors[key] = "Invalid value.";
      continue;
    }
    if (raw.trim() === "") {
      if (!SYSTEM_CONFIG[key].secret) changes.push({ key, kind: "reset" });
      continue;
    }
    const parsed = SYSTEM_CONFIG[key].schema.safeParse(raw);
    if (parsed.success) changes.push({ key, kind: "set", value: parsed.data });
    else fieldErrors[key] = parsed.error.issues[0]?.message ?? "Invalid value.";
  }
  return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors } : { ok: true, changes };
}

/**
 * The system section's fields for the browser's checks (conform): each one blank, or valid by its
 * setting's own schema. The same rules as parseSettingsForm, which the action answers with.
 * `currentPassword` is asked only when a mail routing setting changes (the server decides).
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
            if (!parsed.success)
              ctx.addIssue({ code: "custom", message: parsed.error.issues[0]?.message ?? "Invalid value." });
          }),
      ]),
    ) as Record<ConfigKey, z.ZodOptional<z.ZodString>>,
  )
  .extend({ currentPassword: z.string().max(1024).optional() });

/** A session handle as sent; one that names no session of the caller's is answered as already ended. */
export const revokeSessionSchema = z.object({ session: z.string().max(200).catch("") });
