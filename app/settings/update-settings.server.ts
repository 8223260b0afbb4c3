import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { SYSTEM_CONFIG } from "./config-keys";
import type { SettingsChange } from "./settings-form";
import {
  describeSystemConfig,
  getSystemConfig,
  resetSystemConfig,
  setSystemConfig,
} from "./system-config.server";

/**
 * Applies the parsed changes that actually change something and audits them with before/after.
 * Secret values never reach the audit row: only their key names appear in `changedKeys`.
 */
export async function applySettingsChanges(
  origin: AuditOrigin,
  actor: SessionUser,
  changes: SettingsChange[],
) {
  const before = new Map((await describeSystemConfig()).map((v) => [v.key, v]));
  const applied: SettingsChange[] = [];
  for (const change of changes) {
    const current = before.get(change.key)!;
    if (change.kind === "reset") {
      if (current.source !== "database") continue;
      await resetSystemConfig(change.key);
    } else {
      const stored = current.source === "database" ? await getSystemConfig(change.key) : undefined;
      if (stored === change.value) continue;
      await setSystemConfig(change.key, change.value, actor.id);
    }
    applied.push(change);
  }
  if (applied.length === 0) return { changed: [] as string[] };

  const after = new Map((await describeSystemConfig()).map((v) => [v.key, v]));
  const details: Record<string, { before: string | null; after: string | null; source: string }> = {};
  for (const { key } of applied) {
    if (SYSTEM_CONFIG[key].secret) continue;
    details[key] = {
      before: before.get(key)!.value,
      after: after.get(key)!.value,
      source: after.get(key)!.source,
    };
  }
  const changedKeys = applied.map((c) => c.key);
  await audit(origin, {
    action: applied.every((c) => c.kind === "reset") ? "settings.reset" : "settings.update",
    actor,
    target: { type: "system_setting", id: changedKeys.join(",") },
    details: { changedKeys, changes: details },
  });
  return { changed: changedKeys };
}
