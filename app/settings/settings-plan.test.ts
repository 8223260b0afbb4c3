import { beforeAll, describe, expect, it } from "vitest";
import { setupDatabase, signedIn } from "../../test/helpers";
import { badPlans, plansOf } from "../../test/support/plans";
import { pendingInvitations } from "../auth/invitations.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { tFor } from "../i18n/i18n.server";
import { apiTokensData, profileData, securityData } from "./account-settings.server";
import { inviteData, systemData, webhooksData } from "./workspace-settings.server";

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
    grants: [],
    mustChangePassword: false,
    sessionId: "none",
    sessionExpiresAt: new Date(Date.now() + 60_000).toISOString(),
  };
});

describe("settings query plans", () => {
  it("sessions, the mail log and pending invitations read index ranges", async () => {
    // Every Settings page's data, as the single page's was (app/access/settings-pages.ts lists them).
    const reader = { language: "en", t: tFor("en") };
    const fns: (() => Promise<unknown>)[] = [
      async () => profileData(admin),
      () => securityData(admin, reader, new Request("http://localhost/")),
      () => apiTokensData(admin),
      () => systemData(admin),
      () => webhooksData(admin),
      () => inviteData(admin),
      () => pendingInvitations(admin),
    ];
    for (const fn of fns) {
      const { plans } = await plansOf(db(), fn, { sortsAllowed: ["session"] });
      expect(badPlans(plans)).toEqual([]);
    }
  });
});
