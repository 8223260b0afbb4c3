import { linkIn } from "../../emails/template-text";
import { can } from "../access/check";
import { assertRoleChangeAllowed } from "../access/rules.server";
import { selfRegistrationRole } from "../access/self-registration.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { ReauthProof } from "../auth/account.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { InvalidInput, RuleViolation } from "../domain-errors";
import { env } from "../env.server";
import { type ConfigKey, SYSTEM_CONFIG, superAdminRuleFor } from "../system-settings/config-keys";
import {
  clearSystemConfigCache,
  configFallback,
  describeSystemConfig,
  getSystemConfig,
  resetSystemConfig,
  setSystemConfig,
} from "../system-settings/system-config.server";
import type { SettingsChange } from "./settings-form";
import {
  assertMayChangeSuperAdminSettings,
  type SuperAdminChange,
  superAdminSettingsNotice,
} from "./super-admin-settings.server";

/**
 * The name stands in every mail's heading ({{appName}}): a name a mail client would turn into a
 * link would be a link nobody reviewed in every template (docs/rules.md, "Email templates").
 */
function assertPlainAppName(changes: SettingsChange[]) {
  for (const change of changes) {
    if (change.kind !== "set" || change.key !== "APP_NAME") continue;
    const link = linkIn(change.value);
    if (link) throw new InvalidInput("emailTemplates.appNameLink", "APP_NAME", { link });
  }
}

/**
 * Secret values never reach the audit row, only their key names; a super admin's change is
 * re-authenticated before anything is written, so a refusal changes nothing.
 */
export async function applySettingsChanges(
  actor: SessionUser,
  input: { changes: SettingsChange[]; reauth?: ReauthProof },
  origin: AuditOrigin,
) {
  // The page's action asks first; this holds for any other caller of the domain.
  if (!can(actor, "settings.manage"))
    throw new RuleViolation("access.needsPermission", { permission: "settings.manage" });
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
  assertPlainAppName(applied);

  const changedKeys = applied.map((c) => c.key);
  await assertRolesAllowed(actor, applied);
  const guarded = superAdminChanges(applied, before);
  if (guarded.length > 0) await assertMayChangeSuperAdminSettings(actor, guarded, input.reauth ?? {}, origin);
  const notice = guarded.length > 0 ? await superAdminSettingsNotice(actor, guarded) : null;
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
              ...(guarded.length > 0 ? { reauthenticated: true } : {}),
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

/** Never super_admin, never a role that reads or changes anything (app/access/self-registration.server.ts). */
async function assertRolesAllowed(actor: SessionUser, applied: SettingsChange[]) {
  for (const change of applied) {
    if (change.kind !== "set" || !("roleChoice" in SYSTEM_CONFIG[change.key])) continue;
    const role = await selfRegistrationRole(change.value);
    if (!role) throw new InvalidInput("settings.registrationRole", change.key);
    await assertRoleChangeAllowed(actor, "self-registration", [], [role.id]);
  }
}

function superAdminChanges(applied: SettingsChange[], before: ConfigViews): SuperAdminChange[] {
  return applied.flatMap((change) => {
    const was = before.get(change.key)!.value;
    const next = change.kind === "set" ? change.value : (configFallback(change.key) ?? null);
    const rule = superAdminRuleFor(change.key, was, next);
    return rule
      ? [{ key: change.key, rule, before: was, after: SYSTEM_CONFIG[change.key].secret ? null : next }]
      : [];
  });
}

function fallbackSource(key: SettingsChange["key"]) {
  const def = SYSTEM_CONFIG[key];
  if (env()[def.envVar] as string | undefined) return "environment";
  return def.fixedDefault ? "default" : "unset";
}

type ConfigViews = Map<string, Awaited<ReturnType<typeof describeSystemConfig>>[number]>;

/** Never a secret's. */
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
