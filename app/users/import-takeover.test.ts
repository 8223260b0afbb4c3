import { beforeAll, describe, expect, it } from "vitest";
import { context, createUser, PASSWORD, request, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { attackerSignIn, expectSquatterLockedOut, registerAsAttacker } from "../../test/support/squatter";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { planImport, runImport } from "./import.server";
import { parseImportFile } from "./import-csv";

// Issue 34 part 2 (SECURITY-PLAYBOOK §1): an import vouches for the addresses it lists, as it does
// for the accounts it creates. An account someone registered at one of them and never verified is
// taken over, not handed the imported roles with its registrant's password still in it.

const postmark = withFakePostmark();
const origin = () => ({ request: request("/dashboard/users/import"), context: context() });

async function importer(): Promise<SessionUser & { name: string }> {
  const user = await signedIn(["admin"]);
  const session = (await getSessionUser({
    request: request("/dashboard", { cookie: user.cookie }),
    context: context(),
  }))!;
  return { ...session, name: "Ada Admin" };
}

function rowsOf(text: string) {
  const parsed = parseImportFile(new TextEncoder().encode(text));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem));
  return parsed.rows;
}

async function rolesOf(userId: string) {
  const rows = await db()
    .selectFrom("user_role")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user_id", "=", userId)
    .execute();
  return rows.map((r) => r.name).sort();
}

beforeAll(setupDatabase);

describe("importing an address someone registered first", () => {
  it("takes the account over: the plan says so, the registrant keeps nothing, the person is invited", async () => {
    const squatter = await registerAsAttacker("lead@example.com");
    const admin = await importer();
    const rows = rowsOf("name,email,roles\nLena Lead,lead@example.com,manager\n");
    const [plan] = await planImport(admin, rows);
    const [result] = await runImport(admin, rows, { invite: true, origin: origin() });
    const row = await expectSquatterLockedOut(squatter, "import");
    expect(plan).toMatchObject({ outcome: "update", apply: { userId: squatter.id, takeOver: true } });
    expect(result).toMatchObject({ outcome: "update", message: { key: "users.import.invited" } });
    expect(row).toMatchObject({ name: "Lena Lead", password_hash: null });
    expect(await rolesOf(squatter.id)).toEqual(["manager"]);
    // The address's owner chooses the password through the invitation, not the registrant.
    expect(
      postmark.fake.messages.filter((m) => m.To === "lead@example.com" && m.Tag === "invite"),
    ).toHaveLength(1);
    // A second import of the same row changes nothing and takes nothing over again.
    const [again] = await planImport(admin, rows);
    expect(again!.outcome).toBe("skip");
  });

  it("leaves a verified account's own password alone (the import only updates it)", async () => {
    const holder = await createUser({ roles: ["user"], email: "verified@example.com" });
    const admin = await importer();
    await runImport(admin, rowsOf("name,email\nVera,verified@example.com\n"), {
      invite: false,
      origin: origin(),
    });
    expect(await attackerSignIn("verified@example.com", PASSWORD)).toBe(302);
    const takeovers = await db()
      .selectFrom("audit_log")
      .select("id")
      .where("action", "=", "account.taken_over")
      .where("target_id", "=", holder.id)
      .execute();
    expect(takeovers).toEqual([]);
  });
});
