import { z } from "zod";
import { hasNoNul } from "../../../db/nul";
import { auditViewerOf } from "../../access/audit-token-names.server";
import { liveGlobal } from "../../access/grant-rows.server";
import { inReach, mayAnywhere, reachOf, type Subject } from "../../access/reach.server";
import { db } from "../../db.server";
import { english } from "../../i18n/english.server";
import { matchingUserIds } from "../../users/bulk.server";
import { toCsv } from "../csv";
import { defineTask, TaskError } from "../definition.server";
import { saveArtifact } from "../repository.server";

// Real work: users as CSV, kept with the task and downloaded from the link in the result. Everyone
// by default; the users list's bulk bar sends the people ticked (`ids`) or its filters (`filter`:
// everyone they match, found here with the list's own query).

const text = z.string().trim().max(200).refine(hasNoNul);
const payload = z
  .object({
    ids: z.array(z.string().uuid()).min(1).max(100).optional(),
    filter: z
      .object({
        q: text.default(""),
        // Several roles, joined by commas (app/users/list.server.ts).
        role: z.string().trim().max(500).refine(hasNoNul).default(""),
        status: z.enum(["", "active", "disabled"]).default(""),
        verified: z.enum(["", "yes", "no"]).default(""),
        created: z.enum(["", "7d"]).default(""),
      })
      .optional(),
  })
  .strict()
  .nullish()
  .transform((p) => p ?? {});

/** An export of "everyone matching" stops here, as the bulk bar's acts do, with a clear failure. */
const FILTERED_EXPORT_MAX = 100_000;

/** Null: everyone. `teams`: the owner's reach with user.read (null: everyone). */
async function chosenIds(
  p: z.output<typeof payload>,
  owner: Subject,
  teams: string[] | null,
): Promise<string[] | null> {
  // Ticked on a page, yet out of reach now (or never): left out, as the list would leave them out.
  if (p.ids) return [...(await inReach(owner, "user.read", p.ids))];
  if (!p.filter && teams === null) return null;
  const ids = await matchingUserIds(
    p.filter ?? { q: "", role: "", status: "", verified: "", created: "" },
    FILTERED_EXPORT_MAX,
    teams,
  );
  if (!ids) throw new TaskError(english("users.bulk.tooMany", { max: FILTERED_EXPORT_MAX }));
  return ids;
}

export const usersExport = defineTask({
  type: "users.export",
  permission: "user.read",
  // A team lead exports their teams' people (decision 044).
  scoped: true,
  // Reads users and stores its own file: running it again only writes that file again.
  rerunnable: true,
  payload,
  async run(input, { taskId, userId, signal, progress }) {
    const owner = await auditViewerOf(userId);
    if (!mayAnywhere(owner, "user.read")) throw new TaskError(english("users.bulk.notAllowed"));
    const reach = reachOf(owner, "user.read");
    const ids = await chosenIds(input, owner, reach);
    const query = db()
      .selectFrom("user")
      .select(["id", "name", "email", "email_verified", "created_at"])
      .orderBy("created_at");
    // In slices: a parameter list has its limits (SQLite's 32,766).
    const users = ids
      ? (
          await Promise.all(
            Array.from({ length: Math.ceil(ids.length / 1000) }, (_, i) =>
              query.where("id", "in", ids.slice(i * 1000, (i + 1) * 1000)).execute(),
            ),
          )
        )
          .flat()
          .sort((a, b) => a.created_at.localeCompare(b.created_at))
      : await query.execute();
    const links = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select(["user_role.user_id", "role.name"])
      .where(liveGlobal)
      .orderBy("role.name")
      .execute();
    signal.throwIfAborted();
    progress(0.5);
    const roles = new Map<string, string[]>();
    for (const link of links) roles.set(link.user_id, [...(roles.get(link.user_id) ?? []), link.name]);
    const content = toCsv([
      ["name", "email", "roles", "verified", "created"],
      ...users.map((u) => [
        u.name,
        u.email,
        (roles.get(u.id) ?? []).join(" "),
        u.email_verified ? "yes" : "no",
        u.created_at,
      ]),
    ]);
    const filename = `users-${new Date().toISOString().slice(0, 10)}.csv`;
    await saveArtifact(taskId, { filename, contentType: "text/csv; charset=utf-8", content });
    // `reach`: whom the file could hold (null: everyone), checked again at each download.
    return { rows: users.length, filename, downloadUrl: `/api/tasks/${taskId}/download`, reach };
  },
});
