import { liveGlobal } from "../access/grant-rows.server";
import { type AuditOrigin, audit } from "../audit/audit.server";
import type { SessionUser } from "../auth/session.server";
import { db, now } from "../db.server";
import { RuleViolation } from "../domain-errors";
import { mailHasProvider } from "../mail/transport.server";

// A fresh install's first steps, for its super admins; the list goes once every step is done.

const SETUP_STEPS = ["mail", "admin", "twoFactor", "sso", "backups"] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];
/** What the product cannot see for itself is marked done by hand (kept as a system_setting row). */
export const MARKABLE = ["sso", "backups"] as const satisfies readonly SetupStep[];
export type MarkableStep = (typeof MARKABLE)[number];

const markKey = (step: MarkableStep) => `setup.${step}`;

async function marked(): Promise<Set<string>> {
  const rows = await db()
    .selectFrom("system_setting")
    .select("key")
    .where(
      "key",
      "in",
      MARKABLE.map((s) => markKey(s)),
    )
    .execute();
  return new Set(rows.map((r) => r.key));
}

/**
 * Driven from the admin roles' grants: joined, the planner walked every active person through the
 * global-grant index (32 ms of the home page at 100k people).
 */
async function anotherAdmin(user: SessionUser): Promise<boolean> {
  const row = await db()
    .selectFrom("user_role")
    .select("user_role.user_id")
    .where("user_role.role_id", "in", (eb) =>
      eb.selectFrom("role").select("role.id").where("role.name", "in", ["super_admin", "admin"]),
    )
    .where(liveGlobal)
    .where("user_role.user_id", "!=", user.id)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("user")
          .select("user.id")
          .whereRef("user.id", "=", "user_role.user_id")
          .where("user.status", "=", "active"),
      ),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

async function ownTwoFactor(user: SessionUser): Promise<boolean> {
  const [totp, passkey] = await Promise.all([
    db()
      .selectFrom("user_two_factor")
      .select("user_id")
      .where("user_id", "=", user.id)
      .where("confirmed_at", "is not", null)
      .executeTakeFirst(),
    db().selectFrom("passkey").select("id").where("user_id", "=", user.id).limit(1).executeTakeFirst(),
  ]);
  return totp !== undefined || passkey !== undefined;
}

async function signInFromDirectory(): Promise<boolean> {
  const [sso, directory] = await Promise.all([
    db().selectFrom("oidc_provider").select("id").limit(1).executeTakeFirst(),
    db().selectFrom("directory").select("id").limit(1).executeTakeFirst(),
  ]);
  return sso !== undefined || directory !== undefined;
}

/** Null when the viewer is not a super admin or nothing is left to do. */
export async function setupChecklist(
  user: SessionUser,
): Promise<{ step: SetupStep; done: boolean }[] | null> {
  if (!user.isSuperAdmin) return null;
  const [mail, admin, twoFactor, sso, marks] = await Promise.all([
    mailHasProvider(),
    anotherAdmin(user),
    ownTwoFactor(user),
    signInFromDirectory(),
    marked(),
  ]);
  const done: Record<SetupStep, boolean> = {
    mail,
    admin,
    twoFactor,
    sso: sso || marks.has(markKey("sso")),
    backups: marks.has(markKey("backups")),
  };
  if (SETUP_STEPS.every((s) => done[s])) return null;
  return SETUP_STEPS.map((step) => ({ step, done: done[step] }));
}

/** A super admin's "done" (backups made) or "not needed" (no SSO): audited, workspace-wide. */
export async function markSetupStep(actor: SessionUser, step: MarkableStep, origin: AuditOrigin) {
  if (!actor.isSuperAdmin) throw new RuleViolation("access.superAdminOnly");
  const key = markKey(step);
  const ts = now();
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx
        .insertInto("system_setting")
        .values({ key, value: "done", is_secret: 0, updated_at: ts, updated_by: actor.id })
        .onConflict((oc) => oc.column("key").doNothing())
        .execute();
      await audit(origin, { action: "setup.step_done", actor, details: { step } }, trx);
    });
}
