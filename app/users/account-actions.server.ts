import type { TFunction } from "i18next";
import { roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import type { AuditOrigin } from "../audit/audit.server";
import { settingsUrl } from "../auth/links.server";
import type { SessionUser } from "../auth/session.server";
import { resetTwoFactor } from "../auth/two-factor.server";
import { sendTwoFactorResetEmail } from "../mail/senders.server";
import { type MailOutcome, sendReporting } from "../mail/try-send.server";
import { offerUndo } from "./undo.server";
import { setUserStatus, type UpdateUserInput, updateUser } from "./users.server";

// Here rather than in users.server.ts, which undo.server.ts calls to undo (decision 038).

/** Taking a role away is the part of an edit worth an Undo; the toast says what changed. */
export async function editAccount(
  actor: SessionUser,
  input: UpdateUserInput,
  origin: AuditOrigin,
  t: TFunction,
): Promise<{ message: string; changed: boolean; undo?: string }> {
  const change = await updateUser(actor, input, origin);
  const grants = await roleGrants();
  const names = (ids: string[]) =>
    ids.map((r) => (grants.get(r) ? roleLabel(t, grants.get(r)!) : r)).join(", ");
  const parts = [
    change.name ? t("users:toast.change.name", { name: input.name }) : null,
    change.email ? t("users:toast.change.email", { email: input.email }) : null,
    change.addedRoles.length ? t("users:toast.change.rolesAdded", { roles: names(change.addedRoles) }) : null,
    change.removedRoles.length
      ? t("users:toast.change.rolesRemoved", { roles: names(change.removedRoles) })
      : null,
  ].filter((p) => p !== null);
  if (!parts.length) return { message: t("users:toast.unchanged"), changed: false };
  const message = [t("users:toast.saved"), ...parts].join(" ");
  if (!change.removedRoles.length) return { message, changed: true };
  const undo = await offerUndo(actor, {
    kind: "user.role_removal",
    userIds: [input.id],
    roleIds: change.removedRoles,
  });
  return { message, changed: true, undo };
}

export async function disableAccount(
  actor: SessionUser,
  input: { id: string },
  origin: AuditOrigin,
): Promise<{ undo: string }> {
  await setUserStatus(actor, { id: input.id, status: "disabled" }, origin);
  return { undo: await offerUndo(actor, { kind: "user.disable", userIds: [input.id] }) };
}

/** The reset stands whether or not the email went out; `mail` says how it fared. */
export async function resetAccountTwoFactor(
  actor: SessionUser,
  input: { id: string },
  origin: AuditOrigin,
): Promise<{ email: string; mail: MailOutcome }> {
  const account = await resetTwoFactor(actor, input, origin);
  const mail = await sendReporting(origin, { type: "two-factor-reset", to: account.email }, () =>
    sendTwoFactorResetEmail({
      to: account.email,
      name: account.name,
      settingsUrl: settingsUrl("security", "two-factor"),
    }),
  );
  return { email: account.email, mail };
}
