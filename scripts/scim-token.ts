import { parseArgs } from "node:util";
import { roleGrants } from "../app/access/role-cache.server";
import type { AuditedActor } from "../app/audit/actor";
import { closeDb, db } from "../app/db.server";
import { createDirectory, rotateDirectoryToken } from "../app/directory/directories.server";
import { directorySchema } from "../app/directory/directory-schemas";
import { englishIssue } from "../app/i18n/english.server";
import type { Issue } from "../app/i18n/message";
import { describeDbError } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadDotEnv } from "./dotenv";

// `npm run scim:token NAME -- --domains example.com[,example.org] [--role user]`: connects a
// provisioning directory and prints its token once; for a directory of that name already there,
// issues a new token (the old one stops working). For automation; people use Settings → Directory.
loadDotEnv();
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { domains: { type: "string" }, role: { type: "string", default: "user" } },
});
const name = positionals[0]?.trim();
if (!name) {
  console.error("usage: npm run scim:token NAME -- --domains example.com [--role user]");
  process.exit(2);
}

// Whoever runs this has the database; the audit rows name the command.
const actor: AuditedActor = {
  id: "cli:scim-token",
  email: "npm run scim:token",
  isSuperAdmin: true,
  permissions: new Set(),
};
const origin = {
  request: new Request("http://localhost/cli/scim-token", {
    headers: { "User-Agent": "npm run scim:token" },
  }),
};

try {
  await migrateToLatest(db());
  const existing = await db()
    .selectFrom("directory")
    .select("id")
    .where("name", "=", name)
    .executeTakeFirst();
  if (existing) {
    const token = await rotateDirectoryToken(actor, existing.id, origin);
    console.log(`A new token for ${name} (the previous one no longer works):\n${token}`);
  } else {
    const role = [...(await roleGrants()).values()].find((r) => r.name === values.role);
    if (!role) throw new Error(`there is no role named ${values.role}`);
    const input = directorySchema.parse({ name, domains: values.domains ?? "", defaultRoleId: role.id });
    const { token } = await createDirectory(actor, input, origin);
    console.log(`${name} is connected for ${input.domains.join(", ")}. Its token, shown only now:\n${token}`);
  }
} catch (error) {
  const issues = (error as { issues?: Issue[] }).issues;
  console.error(`scim:token failed: ${issues ? issues.map(englishIssue).join(" ") : describeDbError(error)}`);
  process.exitCode = 1;
} finally {
  await closeDb();
}
