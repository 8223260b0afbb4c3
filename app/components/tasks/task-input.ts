import type { TFunction } from "i18next";
import { auditActionText } from "../../audit/action-text";
import { formatDateIn } from "../format";

// What a task was asked to do, in a few words, so two entries of one type are told apart ("Audit
// log export: CSV · Signed in · from 1 Jan 2026"). Read from the payload the task was started with,
// which is the client's JSON as stored: every field is checked for its type before it is shown.

const LONGEST = 40;

function clip(text: string): string {
  return text.length > LONGEST ? `${text.slice(0, LONGEST - 1)}…` : text;
}

function textIn(payload: Record<string, unknown>, key: string): string {
  const value = payload[key];
  return typeof value === "string" ? value.trim() : "";
}

function auditExportSummary(t: TFunction, language: string, payload: Record<string, unknown>): string {
  const parts = [payload.format === "jsonl" ? t("tasks:input.jsonl") : t("tasks:input.csv")];
  if (textIn(payload, "person")) parts.push(t("tasks:input.person"));
  const action = textIn(payload, "action");
  if (action) parts.push(auditActionText(t, action));
  const actor = textIn(payload, "actor");
  if (actor) parts.push(t("tasks:input.actor", { actor: clip(actor) }));
  const target = textIn(payload, "target");
  if (target) parts.push(t("tasks:input.target", { target: clip(target) }));
  const from = textIn(payload, "from");
  const to = textIn(payload, "to");
  if (from && to)
    parts.push(
      t("tasks:input.between", { from: formatDateIn(language, from), to: formatDateIn(language, to) }),
    );
  else if (from) parts.push(t("tasks:input.from", { from: formatDateIn(language, from) }));
  else if (to) parts.push(t("tasks:input.until", { to: formatDateIn(language, to) }));
  const within = textIn(payload, "within");
  if (within === "24h" || within === "7d" || within === "30d") parts.push(t(`tasks:input.period.${within}`));
  if (parts.length === 1) parts.push(t("tasks:input.allEntries"));
  return parts.join(" · ");
}

/** The task's input in words, or null for a type whose entries need none (or a payload of no shape). */
export function taskInputSummary(
  t: TFunction,
  language: string,
  type: string,
  payload: unknown,
): string | null {
  if (type !== "audit.export") return null;
  const fields = payload && typeof payload === "object" && !Array.isArray(payload) ? payload : {};
  return auditExportSummary(t, language, fields as Record<string, unknown>);
}
