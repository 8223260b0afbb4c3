import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { env } from "../env.server";
import { type ConfigKey, isMailRouting, SYSTEM_CONFIG } from "./config-keys";
import { assertMayChangeMailRouting, mailRoutingNotice } from "./mail-routing.server";
import type { SettingsChange } from "./settings-form";
import {
  clearSystemConfigCache,
  configFallback,
  describeSystemConfig,
  getSystemConfig,
  resetSystemConfig,
  setSystemConfig,
} from "./system-config.server";

/**
 * Applies the parsed changes that actually change something and audits them with before/after,
 * in one transaction. Secret values never reach the audit row: only their key names appear in
 * `changedKeys`. A change of a mail routing setting needs a super admin and `currentPassword`
 * (checked before anything is written, so a refusal changes nothing) and tells every super admin.
 */
export async function applySettingsChanges(
  actor: SessionUser,
  input: { changes: SettingsChange[]; currentPassword?: string },
  origin: AuditOrigin,
) {
  const before = new Map((await describeSystemConfig(actor)).map((v) => [v.key, v]));
  const stored = new Map<string, string | undefined>();
  for (const change of input.changes) {
    if (change.kind === "set" && before.get(change.key)!.source === "database")
      stored.set(change.key, await getSystemConfig(change.key));
  }
  const applied = input.changes.filter((change) =>
    change.kind === "reset"
      ? before.get(change.key)!.source === "database"
      : stored.get(change.key) !== change.value,
  );
  if (applied.length === 0) return { changed: [] as ConfigKey[] };

  const changedKeys = applied.map((c) => c.key);
  const routingKeys = changedKeys.filter(isMailRouting);
  if (routingKeys.length > 0)
    await assertMayChangeMailRouting(actor, routingKeys, input.currentPassword, origin);
  const notice = routingKeys.length > 0 ? await mailRoutingNotice(actor, routingKeys) : null;
  try {
    await db()
      .transaction()
      .execute(async (trx) => {
        for (const change of applied) {
          if (change.kind === "reset") await resetSystemConfig(change.key, trx);
          else await setSystemConfig(change.key, change.value, actor.id, trx);
        }
        await audit(
          origin,
          {
            action: applied.every((c) => c.kind === "reset") ? "settings.reset" : "settings.update",
            actor,
            target: { type: "system_setting", id: changedKeys.join(",") },
            details: {
              changedKeys,
              changes: describeChanges(applied, before),
              ...(routingKeys.length > 0 ? { reauthenticated: true } : {}),
            },
          },
          trx,
        );
        await notice?.store(trx);
      });
  } finally {
    await clearSystemConfigCache();
  }
  await notice?.deliver(origin);
  return { changed: changedKeys };
}

/** Where a key's value comes from once its database value is gone (as describeSystemConfig says it). */
function fallbackSource(key: SettingsChange["key"]) {
  const def = SYSTEM_CONFIG[key];
  if (env()[def.envVar] as string | undefined) return "environment";
  return def.fixedDefault ? "default" : "unset";
}

type ConfigViews = Map<string, Awaited<ReturnType<typeof describeSystemConfig>>[number]>;

/** Before and after of each public value, as the page shows them (never a secret's). */
function describeChanges(applied: SettingsChange[], before: ConfigViews) {
  const details: Record<string, { before: string | null; after: string | null; source: string }> = {};
  for (const change of applied) {
    const def = SYSTEM_CONFIG[change.key];
    if (def.secret) continue;
    const after =
      change.kind === "set"
        ? { value: change.value, source: "database" }
        : { value: configFallback(change.key) ?? null, source: fallbackSource(change.key) };
    details[change.key] = { before: before.get(change.key)!.value, after: after.value, source: after.source };
  }
  return details;
}
