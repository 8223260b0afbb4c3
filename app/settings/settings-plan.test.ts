import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { pendingInvitations } from "../auth/invitations.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { settingsPageData } from "./settings-page.server";

// Settings lists a person's live sessions (bounded by nature: they expire, and signing in is
// rate limited, so sorting them is fine) and the newest 25 emails (a bounded view of the mail
// log, read from its newest end); the users page lists the newest 50 pending invitations.

let admin: SessionUser;
beforeAll(async () => {
  await setupDatabase();
  const user = await signedIn(["super_admin"]);
  admin = {
    id: user.id,
    name: user.name,
    email: user.email,
    roles: ["super_admin"],
    permissions: new Set(),
    isSuperAdmin: true,
    mustChangePassword: false,
    sessionId: "none",
    sessionExpiresAt: new Date(Date.now() + 60_000).toISOString(),
  };
});

describe("settings query plans", () => {
  it("sessions, the mail log and pending invitations read index ranges", async () => {
    const fns: (() => Promise<unknown>)[] = [() => settingsPageData(admin), () => pendingInvitations(admin)];
    for (const fn of fns) {
      const { plans } = await plansOf(db(), fn, { sortsAllowed: ["session"] });
      expect(badPlans(plans)).toEqual([]);
    }
  });
});
