import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { args, context, createUser, PASSWORD, request, run, setupDatabase } from "../../test/helpers";
import { linkIn, withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { action as notMeAction, loader as notMeLoader } from "../routes/account.not-me";
import { loader as dashboardLoader } from "../routes/dashboard";
import {
  action as settingsAction,
  loader as settingsLoader,
} from "../routes/dashboard.settings.security/route";
import { action as loginAction } from "../routes/login/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { setSystemConfig } from "../system-settings/system-config.server";
import { createApiToken } from "./api-tokens.server";
import { getSessionUser } from "./session.server";
import { networkOf } from "./sign-in-alerts.server";

// New sign-in alerts: the first device of an account is recorded silently, a new device and
// network is emailed (once a day at most), a known device, or the same browser on a known
// network, is not; people may turn them off unless an admin requires them; "This wasn't me"
// ends every session, revokes API tokens and sends a reset link.

const postmark = withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX_WIN = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

type Browser = { ua: string; ip: string; device?: string };

/** Signs in with the password from a browser; returns its cookies (session, device). */
async function signIn(email: string, browser: Browser) {
  const req = formRequest(
    "/login",
    { email, password: PASSWORD },
    { headers: { "User-Agent": browser.ua }, cookie: browser.device },
  );
  const out = await run(() => loginAction(args(req, {}, context(browser.ip))));
  expect(out.status).toBe(302);
  const cookies = out.headers.getSetCookie();
  const device = cookies.find((c) => c.startsWith("__device="))!.split(";")[0]!;
  const session = cookies.find((c) => c.startsWith("__session="))!.split(";")[0]!;
  return { device, session };
}

const alertsTo = (email: string) =>
  postmark.fake.messages.filter((m) => m.To === email && m.Tag === "sign-in-alert");
/** The alert is mailed without holding the sign-in: wait for it. */
const alertOf = (email: string) =>
  vi.waitFor(() => {
    const [mail] = alertsTo(email);
    if (!mail) throw new Error("no alert yet");
    return mail;
  });

describe("networkOf", () => {
  it("is the /24 of an IPv4 address and the /48 of an IPv6 one", () => {
    expect(networkOf("203.0.113.77")).toBe("203.0.113.0/24");
    expect(networkOf("::ffff:198.51.100.9")).toBe("198.51.100.0/24");
    expect(networkOf("2001:db8:abcd:12::1")).toBe("2001:db8:abcd::/48");
    expect(networkOf("unknown")).toBe("unknown");
  });
});

describe("new sign-in alerts", () => {
  it("records the first device silently, emails a new one once, and not a known one", async () => {
    const user = await createUser({ roles: ["user"] });
    const laptop = await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.10" });
    expect(alertsTo(user.email)).toEqual([]);
    // The same browser again, cookie kept, from another network: known by its cookie.
    await signIn(user.email, { ua: CHROME_MAC, ip: "192.0.2.5", device: laptop.device });
    // The same browser family on a known network without the cookie (a private window): known.
    await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.99" });
    expect(alertsTo(user.email)).toEqual([]);

    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.7" });
    const mail = await alertOf(user.email);
    expect(mail?.Subject).toBe("New sign-in to your account");
    expect(mail?.TextBody).toContain("Firefox on Windows 10");
    expect(mail?.TextBody).toContain("198.51.100.0/24");
    expect(linkIn(mail?.TextBody, "/account/not-me?token=")).toBeTruthy();
    // The same new browser again the same day, without its cookie, on the same network: no second email.
    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.8" });
    await new Promise((r) => setTimeout(r, 100));
    expect(alertsTo(user.email)).toHaveLength(1);
    expect(
      await db().selectFrom("known_device").select("id").where("user_id", "=", user.id).execute(),
    ).toHaveLength(2);
    const audited = await db()
      .selectFrom("audit_log")
      .select("details")
      .where("action", "=", "auth.login.new_device")
      .where("actor_id", "=", user.id)
      .execute();
    expect(audited.map((a) => JSON.parse(a.details!).alerted)).toEqual([true]);
  });

  it("a browser matching only by family and network never takes over the device's record", async () => {
    const user = await createUser({ roles: ["user"] });
    await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.60" });
    const before = await db()
      .selectFrom("known_device")
      .select("device_hash")
      .where("user_id", "=", user.id)
      .execute();
    await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.61" });
    const after = await db()
      .selectFrom("known_device")
      .select("device_hash")
      .where("user_id", "=", user.id)
      .execute();
    expect(after).toEqual(before);
  });

  it("writes the email in the person's language", async () => {
    const user = await createUser({ roles: ["user"] });
    await db().updateTable("user").set({ locale: "de" }).where("id", "=", user.id).execute();
    await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.20" });
    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.20" });
    expect((await alertOf(user.email)).Subject).toBe("Neue Anmeldung bei Ihrem Konto");
  });

  it("can be turned off by the person, unless an admin requires alerts", async () => {
    const user = await createUser({ roles: ["user"] });
    const first = await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.30" });
    const off = await run(() =>
      settingsAction(
        args(
          formRequest(
            "/dashboard/settings/security",
            { intent: "sign-in-alerts", on: "0" },
            { cookie: first.session },
          ),
        ),
      ),
    );
    expect(off.status).toBe(200);
    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.30" });
    expect(alertsTo(user.email)).toEqual([]);

    await setSystemConfig("SIGN_IN_ALERTS", "required", null);
    try {
      const refused = await run(() =>
        settingsAction(
          args(
            formRequest(
              "/dashboard/settings/security",
              { intent: "sign-in-alerts", on: "0" },
              { cookie: first.session },
            ),
          ),
        ),
      );
      expect(refused.status).toBe(403);
      await signIn(user.email, {
        ua: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
        ip: "192.0.2.30",
      });
      await alertOf(user.email);
    } finally {
      await setSystemConfig("SIGN_IN_ALERTS", "optional", null);
    }
  });

  it("lists known devices in Settings, marks this one, and forgets one (its next sign-in is new again)", async () => {
    const user = await createUser({ roles: ["user"] });
    const laptop = await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.40" });
    const phone = await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.40" });
    const cookie = `${laptop.session}; ${laptop.device}`;
    const page = await run(() => settingsLoader(args(request("/dashboard/settings/security", { cookie }))));
    const { devices } = (
      page.body as { devices: { devices: { id: string; device: string; current: boolean }[] } }
    ).devices;
    expect(devices.map((d) => [d.device, d.current]).sort()).toEqual([
      ["Chrome on macOS", true],
      ["Firefox on Windows 10", false],
    ]);
    const firefox = devices.find((d) => d.device.startsWith("Firefox"))!;
    const stranger = await createUser({ roles: ["user"] });
    const strangerSession = (await signIn(stranger.email, { ua: CHROME_MAC, ip: "203.0.113.41" })).session;
    const notTheirs = await run(() =>
      settingsAction(
        args(
          formRequest(
            "/dashboard/settings/security",
            { intent: "forget-device", device: firefox.id },
            { cookie: strangerSession },
          ),
        ),
      ),
    );
    expect(notTheirs.status).toBe(404);
    const forgot = await run(() =>
      settingsAction(
        args(
          formRequest(
            "/dashboard/settings/security",
            { intent: "forget-device", device: firefox.id },
            { cookie },
          ),
        ),
      ),
    );
    expect(forgot.status).toBe(200);
    postmark.fake.clear();
    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.40", device: phone.device });
    await alertOf(user.email);
  });
});

describe("This wasn't me", () => {
  it("ends every session, revokes API tokens, forgets the device and sends a reset link; the link works once", async () => {
    const user = await createUser({ roles: ["user"] });
    const own = await signIn(user.email, { ua: CHROME_MAC, ip: "203.0.113.50" });
    const holder = (await getSessionUser({
      request: request("/dashboard", { cookie: own.session }),
      context: context(),
    }))!;
    await createApiToken(
      holder,
      { name: "ci", permissions: ["dashboard.access"], expiresInDays: 30 },
      { request: request("/"), context: context() },
    );
    await signIn(user.email, { ua: FIREFOX_WIN, ip: "198.51.100.50" });
    const link = linkIn((await alertOf(user.email)).TextBody, "/account/not-me?token=");
    const path = link.replace(/^https?:\/\/[^/]+/, "");
    const token = new URL(link).searchParams.get("token")!;

    // Opening the link (a mail scanner does) changes nothing.
    const page = await run(() => notMeLoader(args(request(path))));
    expect(page.status).toBe(200);
    expect(
      await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute(),
    ).toHaveLength(2);

    const done = await run(() => notMeAction(args(formRequest(path, { token }))));
    expect(done.status).toBe(200);
    expect(await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute()).toEqual(
      [],
    );
    const dashboard = await run(() => dashboardLoader(args(request("/dashboard", { cookie: own.session }))));
    expect(dashboard.status).toBe(302);
    const tokens = await db()
      .selectFrom("api_token")
      .select("revoked_at")
      .where("user_id", "=", user.id)
      .execute();
    expect(tokens.every((t) => t.revoked_at !== null)).toBe(true);
    const devices = await db()
      .selectFrom("known_device")
      .select("ua_family")
      .where("user_id", "=", user.id)
      .execute();
    expect(devices.map((d) => d.ua_family)).toEqual(["Chrome|Mac OS"]);
    const reset = postmark.fake.messages.filter((m) => m.To === user.email && m.Tag === "reset-password");
    expect(reset).toHaveLength(1);
    const audited = await db()
      .selectFrom("audit_log")
      .select("action")
      .where("action", "=", "account.not_me")
      .where("target_id", "=", user.id)
      .execute();
    expect(audited).toHaveLength(1);

    const again = await run(() => notMeAction(args(formRequest(path, { token }))));
    expect(again.status).toBe(400);
    expect((await run(() => notMeLoader(args(request(path))))).status).toBe(400);
    expect(
      (await run(() => notMeAction(args(formRequest("/account/not-me", { token: "forged" }))))).status,
    ).toBe(400);
  });
});
