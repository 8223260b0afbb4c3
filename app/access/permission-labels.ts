import type { TFunction } from "i18next";
import { isPermissionKey, type PermissionKey } from "./permissions";

// Permissions are declared in code (permissions.ts, English, as the API and the seed use them);
// people read them in their own language, by key: access.json's `permission.<key>`, present in
// every language for every permission (app/access/permission-labels.test.ts).

export function permissionLabel(t: TFunction, key: PermissionKey): string {
  return t(`access:permission.${key}`);
}

/** A key from the database or a token may be one no longer declared: it shows as written. */
export function anyPermissionLabel(t: TFunction, key: string): string {
  return isPermissionKey(key) ? permissionLabel(t, key) : key;
}
