import { beforeAll, describe, expect, it } from "vitest";
import { context, createUser, request, sessionCookieFor, setupDatabase } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { testOrigin } from "../../test/support/scim";
import { fillForPlans, planUser } from "../../test/support/search-plans";
import { getSessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { createDirectory, directoryActor, directoryForToken } from "./directories.server";
import { pageOf } from "./scim-resource";
import { listScimUsers } from "./scim-users.server";
import type { ScimContext } from "./scope.server";

// Okta looks every person up by userName before it creates them: with many accounts that lookup
// must be a read of the email index, not a scan of the user table.

let ctx: ScimContext;

beforeAll(async () => {
  await setupDatabase();
  await fillForPlans();
  const user = await createUser({ roles: ["admin"] });
  const cookie = await sessionCookieFor(user.id);
  const admin = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
  const { token } = await createDirectory(
    admin,
    {
      name: "Plans",
      domains: [planUser(1234).email.split("@")[1]!],
      defaultRoleId: null,
      groupRoles: [],
      sendPasswordLink: false,
    },
    testOrigin(),
  );
  const directory = (await directoryForToken(token))!;
  ctx = {
    directory,
    actor: await directoryActor(directory),
    origin: testOrigin(),
    baseUrl: "http://x/scim/v2",
  };
});

describe("SCIM lookups", () => {
  it.each(["userName", "emails.value"])("%s eq reads the email index", async (attribute) => {
    const email = planUser(1234).email;
    // One address matches at most one account: sorting that row (and its role check) is the right plan.
    const { result, plans } = await plansOf(
      db(),
      () => listScimUsers(ctx, pageOf(new URLSearchParams()), `${attribute} eq "${email.toUpperCase()}"`),
      { sortsAllowed: ["user", "user_role"] },
    );
    expect(result.Resources.map((r) => r.userName)).toEqual([email]);
    expect(badPlans(plans)).toEqual([]);
  });
});
