import { z } from "zod";
import { db } from "../../db.server";
import { toCsv } from "../csv";
import { defineTask } from "../definition.server";
import { saveArtifact } from "../repository.server";

// Real work: every user as CSV, kept with the task and downloaded from the link in the result.
export const usersExport = defineTask({
  type: "users.export",
  permission: "user.read",
  // Reads users and stores its own file: running it again only writes that file again.
  rerunnable: true,
  payload: z
    .object({})
    .nullish()
    .transform(() => ({})),
  async run(_payload, { taskId, signal, progress }) {
    const users = await db()
      .selectFrom("user")
      .select(["id", "name", "email", "email_verified", "created_at"])
      .orderBy("created_at")
      .execute();
    const links = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select(["user_role.user_id", "role.name"])
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
    return { rows: users.length, filename, downloadUrl: `/api/tasks/${taskId}/download` };
  },
});
