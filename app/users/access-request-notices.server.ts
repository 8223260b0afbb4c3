import { randomUUID } from "node:crypto";
import type { AccessRequestView } from "../access/access-request-schemas";
import { grantsOfUsers, liveGlobal } from "../access/grant-rows.server";
import { type RoleGrant, roleGrants } from "../access/role-cache.server";
import { roleLabel } from "../access/role-labels";
import { holdsRoleThere } from "../access/rules.server";
import { db, now } from "../db.server";
import { baseUrl } from "../env.server";
import { tFor } from "../i18n/i18n.server";
import { sendNotificationEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { type NoticeRow, publishNotices, storeNotices } from "../notifications/notices.server";

// Who hears of an access request, and how: deciders when it is made, the requester when it is
// decided, each live (the bell) and by email in their language. Mail carries a link to the
// request's page, which asks for a sign-in; nothing in a mail decides anything.

const origin = {
  request: new Request("http://internal/access-requests", { headers: { "User-Agent": "access-requests" } }),
};

const REQUESTS_PATH = "/dashboard/access/requests";

type Person = { id: string; name: string; email: string; locale: string | null };

/** Active holders of roles.manage over everyone who hold every permission of the role there; never the requester. */
async function decidersOf(request: AccessRequestView, role: RoleGrant): Promise<Person[]> {
  const roles = await roleGrants();
  const managing = [...roles.values()]
    .filter((r) => r.all || r.permissions.has("roles.manage"))
    .map((r) => r.id);
  if (managing.length === 0) return [];
  const candidates = await db()
    .selectFrom("user")
    .select(["user.id", "user.name", "user.email", "user.locale"])
    .where("user.status", "=", "active")
    .where("user.id", "!=", request.user.id)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("user_role")
          .select("user_role.user_id")
          .whereRef("user_role.user_id", "=", "user.id")
          .where("user_role.role_id", "in", managing)
          .where(liveGlobal),
      ),
    )
    .execute();
  const grants = await grantsOfUsers(candidates.map((c) => c.id));
  const at = Date.now();
  return candidates.filter((c) => {
    const own = (grants.get(c.id) ?? []).filter((g) => g.expiresAt === null || Date.parse(g.expiresAt) > at);
    const global = own.filter((g) => g.team === null);
    const subject = {
      id: c.id,
      isSuperAdmin: global.some((g) => g.role.all),
      permissions: new Set(global.flatMap((g) => [...g.role.permissions])),
      grants: own,
    };
    return holdsRoleThere(subject, role, request.team?.id ?? null);
  });
}

async function tell(people: { person: Person; row: NoticeRow }[]) {
  if (people.length === 0) return;
  await db()
    .transaction()
    .execute((trx) =>
      storeNotices(
        trx,
        people.map((p) => p.row),
      ),
    );
  await publishNotices(
    people.map((p) => p.row),
    null,
  );
  await Promise.all(
    people.map(({ person, row }) =>
      trySend(origin, { type: "notification", to: person.email }, () =>
        sendNotificationEmail({
          to: person.email,
          name: person.name,
          subject: row.title,
          message: row.message,
          actionUrl: `${baseUrl()}${row.link ?? REQUESTS_PATH}`,
          language: person.locale ?? undefined,
        }),
      ),
    ),
  );
}

function row(person: Person, title: string, message: string, requestId: string): NoticeRow {
  return {
    id: randomUUID(),
    user_id: person.id,
    broadcast_id: null,
    kind: "security",
    title,
    message,
    level: "info",
    link: `${REQUESTS_PATH}#request-${requestId}`,
    read_at: null,
    created_at: now(),
  };
}

export async function tellDeciders(request: AccessRequestView, role: RoleGrant) {
  const deciders = await decidersOf(request, role);
  await tell(
    deciders.map((person) => {
      const t = tFor(person.locale);
      const values = {
        name: request.user.name,
        role: roleLabel(t, role),
        hours: request.hours,
        reason: request.reason,
        team: request.team?.name ?? "",
      };
      return {
        person,
        row: row(
          person,
          t("access:requests.notice.created.title", values),
          t(
            request.team ? "access:requests.notice.created.inTeam" : "access:requests.notice.created.message",
            values,
          ),
          request.id,
        ),
      };
    }),
  );
}

export async function tellRequester(request: AccessRequestView) {
  const person = await db()
    .selectFrom("user")
    .select(["id", "name", "email", "locale"])
    .where("id", "=", request.user.id)
    .executeTakeFirst();
  const role = [...(await roleGrants()).values()].find((r) => r.name === request.role.name);
  if (!person || !role) return;
  const t = tFor(person.locale);
  const values = { role: roleLabel(t, role), hours: request.hours, comment: request.comment ?? "" };
  const approved = request.status === "approved";
  await tell([
    {
      person,
      row: row(
        person,
        t(approved ? "access:requests.notice.approved.title" : "access:requests.notice.denied.title", values),
        t(
          approved ? "access:requests.notice.approved.message" : "access:requests.notice.denied.message",
          values,
        ),
        request.id,
      ),
    },
  ]);
}
