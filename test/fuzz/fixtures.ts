import { randomUUID } from "node:crypto";
import { createApiToken } from "../../app/auth/api-tokens.server";
import { inviteUser } from "../../app/auth/invitations.server";
import { getSessionUser, sessionHandle } from "../../app/auth/session.server";
import { db, now } from "../../app/db.server";
import { insertTask } from "../../app/tasks/repository.server";
import { context, createUser, request, sessionCookieFor } from "../helpers";

// The records one fuzz target acts on, made fresh for it: what a target deletes or disables is its
// own, so targets never starve each other of real ids. Every pool also holds ids of records the
// caller does not own (another user's task, notification, session), which must stay out of reach.

export type Caller = { id: string; email: string; cookie: string };

export type Pools = {
  self: string;
  users: string[];
  emails: string[];
  roles: string[];
  permissions: string[];
  menu: string[];
  teams: string[];
  invitations: string[];
  /** Session handles (as the Settings page shows them) and raw session ids of others. */
  sessions: string[];
  tasks: string[];
  notifications: string[];
  deliveries: string[];
  /** API token ids: the caller's and somebody else's. */
  apiTokens: string[];
  /** Saved view ids: the caller's and somebody else's. */
  views: string[];
};

async function savedView(ownerId: string) {
  const id = randomUUID();
  await db()
    .insertInto("saved_view")
    .values({
      id,
      owner_id: ownerId,
      list: "users",
      name: `Fuzz ${id.slice(0, 8)}`,
      query: "status=disabled",
      shared_role_id: null,
      created_at: now(),
      updated_at: now(),
    })
    .execute();
  return id;
}

async function notification(userId: string) {
  const id = randomUUID();
  await db()
    .insertInto("notification")
    .values({
      id,
      user_id: userId,
      broadcast_id: null,
      title: "Fuzz",
      message: "Fuzz",
      level: "info",
      link: null,
      read_at: null,
      created_at: now(),
    })
    .execute();
  return id;
}

export async function makeCaller(roles: string[]): Promise<Caller> {
  const user = await createUser({ roles });
  return { ...user, cookie: await sessionCookieFor(user.id) };
}

export async function makePools(caller: Caller): Promise<Pools> {
  const ts = now();
  const victim = await createUser({ roles: ["user"] });
  const unverified = await createUser({ roles: ["guest"], verified: false });
  await sessionCookieFor(victim.id); // a session of somebody else's, for the session pools
  const sessionIds = await db()
    .selectFrom("session")
    .select("id")
    .where("user_id", "in", [victim.id, caller.id])
    .execute();
  const team = randomUUID();
  await db()
    .insertInto("team")
    .values({ id: team, name: `Team ${team.slice(0, 8)}`, description: "", created_at: ts, updated_at: ts })
    .execute();
  await db()
    .insertInto("team_member")
    .values({ team_id: team, user_id: victim.id, team_role: "member", created_at: ts })
    .execute();
  const role = randomUUID();
  await db()
    .insertInto("role")
    .values({ id: role, name: `fuzz_${role.slice(0, 8)}`, label: "Fuzz", created_at: ts, updated_at: ts })
    .execute();
  const actor = await getSessionUser({
    request: request("/", { cookie: caller.cookie }),
    context: context(),
  });
  const guest = await db()
    .selectFrom("role")
    .select("id")
    .where("name", "=", "guest")
    .executeTakeFirstOrThrow();
  const inviteEmail = `invitee-${role.slice(0, 8)}@example.test`;
  if (actor)
    await inviteUser(
      actor,
      { email: inviteEmail, roleIds: [guest.id] },
      { request: request("/"), context: context() },
    );
  const invitations = await db().selectFrom("user_token").select("id").where("kind", "=", "invite").execute();
  const delivery = randomUUID();
  await db()
    .insertInto("mail_delivery")
    .values({
      id: delivery,
      purpose: "reset",
      email: victim.email,
      status: "failed",
      created_at: ts,
      updated_at: ts,
    })
    .execute();
  const ownTask = await insertTask({ type: "report.generate", userId: caller.id, payload: {} });
  const otherTask = await insertTask({ type: "users.export", userId: victim.id, payload: {} });
  const [roles, permissions, menu] = await Promise.all([
    db().selectFrom("role").select("id").execute(),
    db().selectFrom("permission").select("key").execute(),
    db().selectFrom("menu_item").select("id").execute(),
  ]);
  return {
    self: caller.id,
    users: [victim.id, unverified.id, caller.id],
    emails: [victim.email, unverified.email, caller.email, inviteEmail],
    roles: [role, ...roles.map((r) => r.id)],
    permissions: permissions.map((p) => p.key),
    menu: menu.map((m) => m.id),
    teams: [team],
    invitations: invitations.map((i) => i.id),
    sessions: sessionIds.flatMap((s) => [sessionHandle(s.id), s.id]),
    tasks: [ownTask, otherTask],
    notifications: [await notification(caller.id), await notification(victim.id)],
    deliveries: [delivery],
    views: [await savedView(caller.id), await savedView(victim.id)],
    apiTokens: await Promise.all(
      [caller, victim].map(async (owner) => {
        const actor = {
          id: owner.id,
          email: owner.email,
          isSuperAdmin: true,
          permissions: new Set<string>(),
        };
        const input = { name: "Fuzz", expiresInDays: 30, permissions: ["dashboard.access"] };
        return (await createApiToken(actor, input, { request: request("/"), context: context() })).id;
      }),
    ),
  };
}
