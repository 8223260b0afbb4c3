import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Signed-in requests are answered from the session cache (session-cache.server.ts), so a module
// that writes sessions, users or their roles must clear it (invalidateSessions, or endAllSessions
// which does) unless its writes can not change what a cached session says. A new write site fails
// here until it does one or the other.

const ROOT = join(import.meta.dirname, "../..");
const WRITE = /\.(?:updateTable|deleteFrom|insertInto)\("(?:session|user|user_role)"\)/;
const CLEARS = /\binvalidateSessions\(|\bendAllSessions\(/;

const EXEMPT: Record<string, string> = {
  "app/server/cleanup.server.ts": "deletes sessions already past their expiry, which the cache never serves",
  "app/server/seed.server.ts": "creates users, and a new user has no cached session",
  "app/auth/login.server.ts": "sets last_login_at, which no session carries",
  "app/auth/passkeys.server.ts": "sets last_login_at, which no session carries",
  "app/auth/registration.server.ts": "writes new or pending accounts, which can not sign in before verifying",
  "app/auth/invitations.server.ts": "creates the invited user",
  "app/auth/sign-in-alerts.server.ts": "sets sign_in_alerts, which no session carries",
  "app/users/grant-expiry.server.ts":
    "removes grants already past their end, which no session applies (decide() reads the time), and sets expiry_noticed_at, which no session carries",
  "app/directory/directories.server.ts":
    "releases a removed directory's accounts (directory_id), which no session carries",
  "app/directory/membership.server.ts":
    "writes roles inside its caller's transaction; the callers (scim-users, scim-groups) clear the cache once it commits",
  "app/auth/account-takeover.server.ts":
    "writes inside its caller's transaction; afterTakeOver (sessionsEnded) clears the cache once it commits",
  "app/auth/session-policy.server.ts":
    "sets last_seen_at, which this instance's cached session notes itself and another instance reads again before calling a session idle",
  "app/auth/sessions-admin.server.ts":
    "deletes sessions through endSessions and sessionsEnded, which clear the cache",
  "app/access/roles-admin.server.ts":
    "removes a deleted role's links; the role leaves the role cache (invalidateRoles), so it grants nothing",
};

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe("writes that change a signed-in caller", () => {
  const writers = sources("app").filter((file) => WRITE.test(readFileSync(join(ROOT, file), "utf8")));

  it("are found (the scan works)", () => {
    expect(writers).toContain("app/users/users.server.ts");
  });

  it.each(writers.map((file) => [relative(".", file)]))(
    "%s clears the session cache or is exempt",
    (file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(
        CLEARS.test(text) || file in EXEMPT,
        `${file} writes sessions/users without invalidateSessions()`,
      ).toBe(true);
    },
  );
});
