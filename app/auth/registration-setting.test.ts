import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, context, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { invalidateRoles } from "../access/role-cache.server";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { settleDeliveries } from "../mail/deliveries.server";
import {
  action as settingsAction,
  loader as settingsLoader,
} from "../routes/dashboard.settings.system/route";
import { loader as loginLoader } from "../routes/login/route";
import { action as registerAction, loader as registerLoader } from "../routes/register";
import { resetRateLimits } from "../security/rate-limit.server";
import { i18nMiddleware } from "../server/root-middleware.server";
import { getSystemConfig, resetSystemConfig, setSystemConfig } from "../system-settings/system-config.server";
import { registrationOpen } from "./registration.server";

// Public registration is a setting (Settings → System): open unless closed (the shared HTTP contract
// has POST /register create accounts on a stock instance); closed, /register says so and its POST is refused with 403; the role a new account
// gets is one that grants nothing beyond the dashboard (docs/rules.md, "Accounts and access").

withFakePostmark();
beforeAll(setupDatabase);
beforeEach(() => resetRateLimits());
afterEach(async () => {
  delete process.env.REGISTRATION;
  delete process.env.REGISTRATION_ROLE;
  process.env.NODE_ENV = "test";
  resetEnvCache();
  await resetSystemConfig("REGISTRATION");
  await resetSystemConfig("REGISTRATION_ROLE");
});

function setEnv(values: Record<string, string>) {
  Object.assign(process.env, values);
  resetEnvCache();
}

let ip = 0;
async function post(
  action: (a: never) => unknown,
  path: string,
  values: Record<string, string>,
  opts: { cookie?: string; language?: string; ip?: string } = {},
) {
  const headers = { "Accept-Language": opts.language ?? "en" };
  const a = args(
    formRequest(path, values, { cookie: opts.cookie, headers }),
    {},
    context(opts.ip ?? `198.51.100.${++ip}`),
  );
  const { request: req, context: ctx } = a as unknown as Parameters<typeof i18nMiddleware>[0];
  await i18nMiddleware({ request: req, context: ctx } as never, async () => new Response());
  const out = await run(() => action(a));
  await settleDeliveries();
  return out;
}
const register = (email: string, opts: { language?: string; ip?: string } = {}) =>
  post(
    registerAction as never,
    "/register",
    { name: "New Person", email, password: "a long new passphrase" },
    opts,
  );
const setting = (cookie: string, values: Record<string, string>) =>
  post(settingsAction as never, "/dashboard/settings/system", { intent: "system", ...values }, { cookie });

async function rolesOf(email: string) {
  const rows = await db()
    .selectFrom("user")
    .innerJoin("user_role", "user_role.user_id", "user.id")
    .innerJoin("role", "role.id", "user_role.role_id")
    .select("role.name")
    .where("user.email", "=", email)
    .execute();
  return rows.map((r) => r.name);
}
const userExists = async (email: string) =>
  !!(await db().selectFrom("user").select("id").where("email", "=", email).executeTakeFirst());

describe("whether registration is open", () => {
  it("is open unless closed, in production too (the HTTP contract's POST /register); Settings wins over the environment", async () => {
    expect(await registrationOpen()).toBe(true);
    setEnv({ NODE_ENV: "production" });
    expect(await registrationOpen()).toBe(true);
    expect(await getSystemConfig("REGISTRATION")).toBe("open");
    setEnv({ REGISTRATION: "closed" });
    expect(await registrationOpen()).toBe(false);
    await setSystemConfig("REGISTRATION", "open", null);
    expect(await registrationOpen()).toBe(true);
    await setSystemConfig("REGISTRATION", "closed", null);
    expect(await registrationOpen()).toBe(false);
  });

  it("closed: the page says so, the sign-in page offers no link, the POST gets 403 and writes nothing", async () => {
    await setSystemConfig("REGISTRATION", "closed", null);
    expect((await run(() => registerLoader(args(request("/register"))))).body).toEqual({ open: false });
    expect((await run(() => loginLoader(args(request("/login"))))).body).toMatchObject({
      registration: false,
    });

    const out = await register("closed@example.test", { language: "de" });
    expect(out.status).toBe(403);
    expect(out.body).toMatchObject({
      error: "registration_closed",
      formError:
        "Die Registrierung ist geschlossen. Bitten Sie eine Administratorin oder einen Administrator um eine Einladung.",
    });
    expect(await userExists("closed@example.test")).toBe(false);
    // Nothing counted either: six refused tries from one address leave its budget (5 a minute) whole.
    for (let i = 0; i < 6; i++)
      expect((await register("again@example.test", { ip: "192.0.2.9" })).status).toBe(403);
    await resetSystemConfig("REGISTRATION");
    expect((await register("again@example.test", { ip: "192.0.2.9" })).status).toBe(302);
    expect((await run(() => loginLoader(args(request("/login"))))).body).toMatchObject({
      registration: true,
    });
  });
});

describe("the role of self-registered accounts", () => {
  it("is user unless set, and the role chosen in Settings when set", async () => {
    expect((await register("plain@example.test")).status).toBe(302);
    expect(await rolesOf("plain@example.test")).toEqual(["user"]);
    const admin = await signedIn(["admin"]);
    expect((await setting(admin.cookie, { REGISTRATION_ROLE: "guest" })).status).toBe(200);
    expect((await register("guest@example.test")).status).toBe(302);
    expect(await rolesOf("guest@example.test")).toEqual(["guest"]);
  });

  it("offers and takes only roles that grant nothing beyond the dashboard: never super admin", async () => {
    const admin = await signedIn(["admin"]);
    const page = await run(() =>
      settingsLoader(args(request("/dashboard/settings/system", { cookie: admin.cookie }))),
    );
    const view = (page.body as { config: { key: string; choices: string[] | null }[] }).config;
    expect(view.find((c) => c.key === "REGISTRATION_ROLE")?.choices).toEqual(["user", "guest"]);
    expect(view.find((c) => c.key === "REGISTRATION")?.choices).toEqual(["open", "closed"]);

    for (const value of ["super_admin", "admin", "manager", "no_such_role", "Bad Name"]) {
      const out = await setting(admin.cookie, { REGISTRATION_ROLE: value });
      expect(out.status, value).toBe(400);
      expect((out.body as { errors: Record<string, string> }).errors.REGISTRATION_ROLE, value).toBeTruthy();
    }
    expect((await setting(admin.cookie, { REGISTRATION: "sometimes" })).status).toBe(400);
    expect(await getSystemConfig("REGISTRATION_ROLE")).toBe("user");
  });

  it("needs settings.manage to change either", async () => {
    const manager = await signedIn(["manager"]);
    const tries: Record<string, string>[] = [{ REGISTRATION: "closed" }, { REGISTRATION_ROLE: "guest" }];
    for (const values of tries) {
      const out = await setting(manager.cookie, values);
      expect(out.status).toBe(403);
    }
    expect(await getSystemConfig("REGISTRATION_ROLE")).toBe("user");
    expect(await getSystemConfig("REGISTRATION")).toBe("open");
  });

  it("a chosen role that later grants more, or an unfit one from the environment, gives no role at all", async () => {
    const id = crypto.randomUUID();
    const ts = new Date().toISOString();
    await db()
      .insertInto("role")
      .values({ id, name: "member", label: "Member", created_at: ts, updated_at: ts })
      .execute();
    const permission = (key: string) =>
      db().selectFrom("permission").select("id").where("key", "=", key).executeTakeFirstOrThrow();
    await db()
      .insertInto("role_permission")
      .values({ role_id: id, permission_id: (await permission("dashboard.access")).id })
      .execute();
    await invalidateRoles();
    const admin = await signedIn(["admin"]);
    expect((await setting(admin.cookie, { REGISTRATION_ROLE: "member" })).status).toBe(200);
    await register("member@example.test");
    expect(await rolesOf("member@example.test")).toEqual(["member"]);

    // Someone lets "member" read every user: strangers must not get that by registering.
    await db()
      .insertInto("role_permission")
      .values({ role_id: id, permission_id: (await permission("user.read")).id })
      .execute();
    await invalidateRoles();
    await register("member2@example.test");
    expect(await userExists("member2@example.test")).toBe(true);
    expect(await rolesOf("member2@example.test")).toEqual([]);

    await resetSystemConfig("REGISTRATION_ROLE");
    setEnv({ REGISTRATION_ROLE: "admin" });
    await register("env-admin@example.test");
    expect(await rolesOf("env-admin@example.test")).toEqual([]);
  });
});
