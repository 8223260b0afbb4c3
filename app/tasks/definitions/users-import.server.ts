import { z } from "zod";
import { auditViewerOf } from "../../access/audit-token-names.server";
import { can } from "../../access/check";
import { db } from "../../db.server";
import { english } from "../../i18n/english.server";
import { tFor } from "../../i18n/i18n.server";
import { say } from "../../i18n/message";
import { runImport } from "../../users/import.server";
import { IMPORT_MAX_ROWS } from "../../users/import-csv";
import { toCsv } from "../csv";
import { defineTask, TaskError } from "../definition.server";
import { saveArtifact } from "../repository.server";

// Users → Import's run (app/users/import.server.ts): every row planned again and written alone,
// with live progress; the outcome of each row is the task's file, in its owner's language.

const row = z.object({
  line: z.number().int().min(1),
  name: z.string().max(500),
  email: z.string().max(500),
  roles: z.array(z.string().max(200)).max(50),
  teams: z.array(z.string().max(200)).max(50),
});

const OUTCOME_WORD = { create: "created", update: "updated", skip: "skipped", error: "refused" } as const;

export const usersImport = defineTask({
  type: "users.import",
  permission: "user.write",
  // Creates accounts and mails invitations: never run twice.
  rerunnable: false,
  pageOnly: true,
  timeoutMs: 15 * 60_000,
  payload: z.object({ rows: z.array(row).min(1).max(IMPORT_MAX_ROWS), invite: z.boolean().default(false) }),
  async run({ rows, invite }, { taskId, userId, signal, progress }) {
    const [viewer, owner] = await Promise.all([
      auditViewerOf(userId),
      db()
        .selectFrom("user")
        .select(["id", "email", "name", "locale"])
        .where("id", "=", userId)
        .executeTakeFirst(),
    ]);
    // Permissions as they are now: someone who lost user.write since starting imports nothing.
    if (!owner || !can(viewer, "user.write")) throw new TaskError(english("users.import.notManageable"));
    const actor = { ...viewer, email: owner.email, name: owner.name };
    const origin = {
      request: new Request("http://internal/users-import", { headers: { "User-Agent": "users.import" } }),
    };
    const results = await runImport(actor, rows, {
      invite,
      origin,
      signal,
      progress: (done) => progress(Math.min(0.99, done / rows.length), `${done} of ${rows.length} rows`),
    });
    const t = tFor(owner.locale);
    const filename = `import-${new Date().toISOString().slice(0, 10)}.csv`;
    await saveArtifact(taskId, {
      filename,
      contentType: "text/csv; charset=utf-8",
      content: toCsv([
        ["line", "email", "outcome", "message"],
        ...results.map((r) => [String(r.line), r.email, OUTCOME_WORD[r.outcome], say(t, r.message)]),
      ]),
    });
    const count = (o: string) => results.filter((r) => r.outcome === o).length;
    return {
      rows: results.length,
      created: count("create"),
      updated: count("update"),
      skipped: count("skip"),
      failed: count("error"),
      filename,
      downloadUrl: `/api/tasks/${taskId}/download`,
    };
  },
});
