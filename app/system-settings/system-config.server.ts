import { selfRegistrationRoles } from "../access/self-registration.server";
import { db, type Executor, now } from "../db.server";
import { env } from "../env.server";
import { invalidateEverywhere, registerCache } from "../events/cluster.server";
import { decryptSecret, encryptSecret } from "../security/secret-box.server";
import { type ConfigKey, type ConfigView, isConfigKey, SYSTEM_CONFIG } from "./config-keys";

// Loaded once and kept until the next write on any instance.
let cache: Promise<Map<ConfigKey, { value: string; updatedAt: string }>> | undefined;

async function load() {
  const rows = await db().selectFrom("system_setting").selectAll().execute();
  const values = new Map<ConfigKey, { value: string; updatedAt: string }>();
  for (const row of rows) {
    if (!isConfigKey(row.key)) continue;
    try {
      const value = row.is_secret === 1 ? decryptSecret(row.value) : row.value;
      values.set(row.key, { value, updatedAt: row.updated_at });
    } catch (error) {
      // An unreadable secret (encryption key changed) behaves as unset rather than breaking every page.
      console.error(`[settings] ${row.key}: ${(error as Error).message}`);
    }
  }
  return values;
}

function stored() {
  cache ??= load().catch((error) => {
    cache = undefined;
    throw error;
  });
  return cache;
}

registerCache("settings", () => {
  cache = undefined;
});

/** Every write calls it. */
export function clearSystemConfigCache(): Promise<void> {
  return invalidateEverywhere("settings");
}

export function configFallback(key: ConfigKey): string | undefined {
  const def = SYSTEM_CONFIG[key];
  return (env()[def.envVar] as string | undefined) ?? builtInDefault(key);
}

function builtInDefault(key: ConfigKey): string | undefined {
  return SYSTEM_CONFIG[key].fixedDefault;
}

type DefaultedKey = {
  [K in ConfigKey]: (typeof SYSTEM_CONFIG)[K]["fixedDefault"] extends string ? K : never;
}[ConfigKey];

export async function getSystemConfig(key: DefaultedKey): Promise<string>;
export async function getSystemConfig(key: ConfigKey, fallback: string): Promise<string>;
export async function getSystemConfig(key: ConfigKey, fallback?: string): Promise<string | undefined>;
export async function getSystemConfig(key: ConfigKey, ...rest: [string?]): Promise<string | undefined> {
  const value = (await stored()).get(key)?.value;
  if (value !== undefined) return value;
  return rest.length > 0 ? rest[0] : configFallback(key);
}

/** Encrypted when the key is secret; inside a transaction the caller clears the cache once committed. */
export async function setSystemConfig(
  key: ConfigKey,
  value: string,
  updatedBy: string | null,
  executor?: Executor,
) {
  const secret = SYSTEM_CONFIG[key].secret;
  const row = {
    value: secret ? encryptSecret(value) : value,
    is_secret: secret ? 1 : 0,
    updated_at: now(),
    updated_by: updatedBy,
  };
  try {
    await (executor ?? db())
      .insertInto("system_setting")
      .values({ key, ...row })
      .onConflict((oc) => oc.column("key").doUpdateSet(row))
      .execute();
  } finally {
    if (!executor) await clearSystemConfigCache();
  }
}

export async function resetSystemConfig(key: ConfigKey, executor?: Executor) {
  try {
    await (executor ?? db()).deleteFrom("system_setting").where("key", "=", key).execute();
  } finally {
    if (!executor) await clearSystemConfigCache();
  }
}

/** Only of values long enough that this reveals little. */
function secretHint(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : "…";
}

export async function describeSystemConfig(viewer: { isSuperAdmin: boolean }): Promise<ConfigView[]> {
  const [values, roles] = await Promise.all([stored(), selfRegistrationRoles()]);
  return (Object.keys(SYSTEM_CONFIG) as ConfigKey[]).map((key) => {
    const def = SYSTEM_CONFIG[key];
    const dbValue = values.get(key);
    const envValue = env()[def.envVar] as string | undefined;
    const fallback = builtInDefault(key);
    const effective = dbValue?.value ?? envValue ?? fallback;
    const source = dbValue ? "database" : envValue ? "environment" : fallback ? "default" : "unset";
    return {
      key,
      label: def.label,
      help: def.help,
      secret: def.secret,
      locked: def.superAdminOnly === "mail_routing" && !viewer.isSuperAdmin,
      restriction: viewer.isSuperAdmin ? null : def.superAdminOnly || null,
      source,
      value: def.secret ? null : (effective ?? null),
      hint: def.secret && effective ? secretHint(effective) : null,
      updatedAt: dbValue?.updatedAt ?? null,
      choices: "choices" in def ? def.choices : "roleChoice" in def ? roles.map((r) => r.name) : null,
      roles:
        "roleChoice" in def
          ? roles.map((r) => ({ name: r.name, label: r.label, translations: r.translations }))
          : null,
    };
  });
}
