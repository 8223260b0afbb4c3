import type { TFunction } from "i18next";
import { sql } from "kysely";
import { z } from "zod";
import { containsText, likeLiteral } from "../../db/like";
import { inReach, reachOf } from "../access/reach.server";
import { manageableUsers } from "../access/rules.server";
import type { AuditedActor } from "../audit/actor";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, now } from "../db.server";
import { NotFound, RuleViolation } from "../domain-errors";
import { baseUrl } from "../env.server";
import { describeUserAgent } from "../http/user-agent";
import { englishTranslator } from "../i18n/english.server";
import { sendSessionsEndedEmail } from "../mail/senders.server";
import { trySend } from "../mail/try-send.server";
import { endSessions, sessionsEnded } from "./session-end.server";

// Every active session of everyone in reach (decision 051): /dashboard/sessions and /api/sessions.
// A session is named by its handle (a hash of its id), never the id its cookie carries. Listing
// needs user.update over the person; ending one needs to be able to manage them (an admin cannot
// end a super admin's sessions); "everyone but me" is a super admin's, for an incident.

const PAGE = 50;
const HANDLE = z.string().regex(/^[A-Za-z0-9_-]{16}$/);

export const sessionsQuery = z.object({
  user: z.string().uuid().optional().catch(undefined),
  /** The address, or its beginning ("10.1."). */
  ip: z.string().trim().max(64).optional().catch(undefined),
  /** Name or email, in part. */
  q: z.string().trim().max(100).optional().catch(undefined),
  /** Unused for at least this many minutes. */
  idle: z.coerce.number().int().min(1).max(43_200).optional().catch(undefined),
  /** The last row of the page before: `lastSeenAt|handle`. */
  after: z.string().max(80).optional().catch(undefined),
  limit: z.coerce.number().int().min(1).max(200).default(PAGE).catch(PAGE),
});
export type SessionsQuery = z.infer<typeof sessionsQuery>;

export type AdminSessionRow = {
  id: string;
  user: { id: string; name: string; email: string };
  ip: string | null;
  device: string;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
  /** The viewer may end it (they can manage the person). */
  mayEnd: boolean;
};

/**
 * O(page): the sessions are walked newest use first on the (last_seen_at, handle) index, each tested
 * for its person (active, in reach, matching) by a subquery, and stop at the page; the people are
 * read after, for that page alone. A join let SQLite start from every active person instead
 * (100k people: 3.5x the empty database's time, decision 051).
 */
export async function listSessions(
  actor: AuditedActor & { sessionId?: string },
  query: SessionsQuery,
  t: TFunction = englishTranslator(),
): Promise<{ sessions: AdminSessionRow[]; next: string | null }> {
  const reach = reachOf(actor as never, "user.update");
  if (reach !== null && reach.length === 0) return { sessions: [], next: null };
  let q = db()
    .selectFrom("session")
    .select(["handle", "id", "ip", "user_agent", "created_at", "last_seen_at", "user_id"])
    .where("session.expires_at", ">", now())
    .where((eb) => {
      let person = eb
        .selectFrom("user")
        .select("user.id")
        .whereRef("user.id", "=", "session.user_id")
        .where("user.status", "=", "active");
      if (query.q) {
        const text = query.q;
        person = person.where((w) =>
          w.or([containsText("user.name", text), containsText("user.email", text)]),
        );
      }
      return eb.exists(person);
    });
  if (reach !== null)
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom("team_member")
          .select("team_member.user_id")
          .whereRef("team_member.user_id", "=", "session.user_id")
          .where("team_member.team_id", "in", reach),
      ),
    );
  if (query.user) q = q.where("session.user_id", "=", query.user);
  if (query.ip)
    q = q.where(sql<boolean>`${sql.ref("session.ip")} like ${`${likeLiteral(query.ip)}%`} escape '\\'`);
  if (query.idle)
    q = q.where("session.last_seen_at", "<=", new Date(Date.now() - query.idle * 60_000).toISOString());
  const cursor = query.after?.split("|");
  if (cursor?.length === 2)
    q = q.where((eb) =>
      eb.or([
        eb("session.last_seen_at", "<", cursor[0]!),
        eb.and([eb("session.last_seen_at", "=", cursor[0]!), eb("session.handle", "<", cursor[1]!)]),
      ]),
    );
  const rows = await q
    .orderBy("session.last_seen_at", "desc")
    .orderBy("session.handle", "desc")
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const ids = [...new Set(page.map((r) => r.user_id))];
  const [people, manageable] = await Promise.all([
    ids.length
      ? db().selectFrom("user").select(["id", "name", "email"]).where("id", "in", ids).execute()
      : Promise.resolve([]),
    manageableUsers(actor as never, ids),
  ]);
  const person = new Map(people.map((p) => [p.id, p]));
  const last = page.at(-1);
  return {
    sessions: page.map((r) => ({
      id: r.handle ?? "",
      user: {
        id: r.user_id,
        name: person.get(r.user_id)?.name ?? "",
        email: person.get(r.user_id)?.email ?? "",
      },
      ip: r.ip,
      device: describeUserAgent(r.user_agent, t).device,
      createdAt: r.created_at,
      lastSeenAt: r.last_seen_at,
      current: r.id === actor.sessionId,
      mayEnd: manageable.has(r.user_id),
    })),
    next: rows.length > query.limit && last ? `${last.last_seen_at}|${last.handle}` : null,
  };
}

/** Each person told once by email with how many of theirs ended; the actor is not told of their own. */
async function tell(actor: AuditedActor, byUser: Map<string, string[]>, origin: AuditOrigin) {
  const ids = [...byUser.keys()].filter((id) => id !== actor.id);
  for (let i = 0; i < ids.length; i += 500) {
    const people = await db()
      .selectFrom("user")
      .select(["id", "name", "email", "locale"])
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const p of people)
      await trySend(origin, { type: "sessions-ended", to: p.email }, () =>
        sendSessionsEndedEmail({
          to: p.email,
          name: p.name,
          signInUrl: `${baseUrl()}/login`,
          count: byUser.get(p.id)?.length ?? 1,
          language: p.locale ?? undefined,
        }),
      );
  }
}

function byPerson(found: readonly { id: string; user_id: string }[]) {
  const byUser = new Map<string, string[]>();
  for (const s of found) byUser.set(s.user_id, [...(byUser.get(s.user_id) ?? []), s.id]);
  return byUser;
}

async function audited(
  actor: AuditedActor,
  byUser: Map<string, string[]>,
  ended: number,
  scope: string,
  origin: AuditOrigin,
) {
  await audit(origin, {
    action: "session.end",
    actor,
    target: byUser.size === 1 ? { type: "user", id: [...byUser.keys()][0]! } : null,
    details: { scope, sessions: ended, people: byUser.size },
  });
}

/**
 * Sessions by handle: one out of reach is as missing (404, no oracle); one of a person the actor
 * cannot manage refuses the whole request (403), so nothing is half done.
 */
export async function endSessionsByHandle(
  actor: AuditedActor,
  handles: string[],
  origin: AuditOrigin,
): Promise<number> {
  const valid = [...new Set(handles.filter((h) => HANDLE.safeParse(h).success))];
  if (valid.length === 0) throw new NotFound("sessions.gone");
  const rows = await db()
    .selectFrom("session")
    .innerJoin("user", "user.id", "session.user_id")
    .select(["session.id", "session.user_id"])
    .where("session.handle", "in", valid)
    .where("session.expires_at", ">", now())
    .execute();
  const reached = await inReach(actor as never, "user.update", [...new Set(rows.map((r) => r.user_id))]);
  const inScope = rows.filter((r) => reached.has(r.user_id));
  if (inScope.length === 0) throw new NotFound("sessions.gone");
  const manageable = await manageableUsers(actor as never, [...reached]);
  if (inScope.some((r) => !manageable.has(r.user_id))) throw new RuleViolation("sessions.cannotEnd");
  const byUser = byPerson(inScope);
  let ended = 0;
  for (const [userId, ids] of byUser) ended += await endSessions({ userId, ids });
  await audited(actor, byUser, ended, "selected", origin);
  await tell(actor, byUser, origin);
  return ended;
}

/** An incident's button: every session but the one pressing it. Super admin only. */
export async function endEveryoneElse(
  actor: AuditedActor & { sessionId: string },
  origin: AuditOrigin,
): Promise<number> {
  if (!actor.isSuperAdmin) throw new RuleViolation("sessions.superAdminOnly");
  // One statement however many there are; the emails go out after the answer.
  const rows = await db()
    .deleteFrom("session")
    .where("id", "!=", actor.sessionId)
    .returning(["id", "user_id"])
    .execute();
  await sessionsEnded(rows.map((r) => r.id));
  const byUser = byPerson(rows);
  await audited(actor, byUser, rows.length, "everyone", origin);
  void tell(actor, byUser, origin).catch((error) => console.error(error));
  return rows.length;
}
