import { z } from "zod";
import { reauthFields } from "../auth/account-schemas";
import { issueValues } from "../i18n/message";
import { CONFIG_KEYS, type ConfigKey, SYSTEM_CONFIG } from "../system-settings/config-keys";

// Checked by the browser (conform) and parsed by the action, whose output is the list of changes.

export type SettingsChange =
  | { key: ConfigKey; kind: "set"; value: string }
  | { key: ConfigKey; kind: "reset" };

type SettingsReauth = { password?: string; code?: string };

const resetKey = z.enum(CONFIG_KEYS as [ConfigKey, ...ConfigKey[]]);

/**
 * A blank secret keeps the stored one (it is never sent to the browser, so the field starts empty);
 * a blank plain value removes the database value, so the environment applies again.
 */
export const systemSettingsSchema = z
  .object({
    ...(Object.fromEntries(CONFIG_KEYS.map((key) => [key, z.string().optional()])) as Record<
      ConfigKey,
      z.ZodOptional<z.ZodString>
    >),
    reset: z.string().optional(),
    ...reauthFields,
  })
  .transform((input, ctx) => {
    const reauth: SettingsReauth = {
      password: input.currentPassword || undefined,
      code: input.reauthCode || undefined,
    };
    const changes: SettingsChange[] = [];
    if (input.reset !== undefined) {
      const key = resetKey.safeParse(input.reset);
      if (key.success) changes.push({ key: key.data, kind: "reset" });
      else ctx.addIssue({ code: "custom", message: "validation.invalid", path: ["reset"] });
      return { changes, reauth };
    }
    for (const key of CONFIG_KEYS) {
      const raw = input[key];
      if (raw === undefined) continue; // not on this form
      if (raw.trim() === "") {
        if (!SYSTEM_CONFIG[key].secret) changes.push({ key, kind: "reset" });
        continue;
      }
      const parsed = SYSTEM_CONFIG[key].schema.safeParse(raw);
      if (parsed.success) changes.push({ key, kind: "set", value: parsed.data });
      else {
        const issue = parsed.error.issues[0];
        const message = issue?.message ?? "validation.invalid";
        ctx.addIssue({ code: "custom", message, params: issue && issueValues(issue), path: [key] });
      }
    }
    return { changes, reauth };
  });

/** One that names no session of the caller's is answered as already ended. */
export const revokeSessionSchema = z.object({ session: z.string().max(200).catch("") });

export const forgetDeviceSchema = z.object({ device: z.string().min(1).max(64) });
export const signInAlertsSchema = z.object({ on: z.enum(["0", "1"]) });
