import type { TFunction } from "i18next";
import { ACTION_LABELS } from "./actions";

// An audit action as the reader says it: audit.json's `action.<name>`, present in every language
// for every action in ACTION_LABELS (app/audit/action-text.test.ts). ACTION_LABELS keeps the
// English for the code's own use (the export, the tests); a name from an older release that is
// no longer listed shows as written.

export function auditActionText(t: TFunction, action: string): string {
  return Object.hasOwn(ACTION_LABELS, action) ? t(`audit:action.${action}`) : action;
}
