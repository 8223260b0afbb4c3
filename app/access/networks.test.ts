import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  args,
  context,
  createUser,
  PASSWORD,
  request,
  run,
  setupDatabase,
  signedIn,
} from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { answerProblem } from "../api-docs/check-answer";
import { createApiToken } from "../auth/api-tokens.server";
import { accessGateMiddleware } from "../auth/guard.server";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { invalidateSessions } from "../auth/session-cache.server";
import { db, now } from "../db.server";
import { clearLocal } from "../events/cluster.server";
import { openStreamCount, recheckStreams } from "../events/stream.server";
import { cidrSchema, networksSchema } from "../http/cidr";
import * as eventsRoute from "../routes/api.events";
import * as rolesRoute from "../routes/api.roles";
import * as roleRoute from "../routes/api.roles.$name";
import * as networksPage from "../routes/dashboard.access.roles.$name.policy/route";
import { action as loginAction } from "../routes/login/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { networkRulePreview } from "./networks.server";
import { roleGrants } from "./role-cache.server";
import { createRole } from "./roles-admin.server";

// Network rules per role (docs/http-contract.md, "Network rules"; decision 050): the rule's input,
// the gate on every signed-in request, sign-in, API tokens, the preview, and the lockout guards.

const OFFICE = "10.1.2.3";
const HOME = "127.0.0.1";

const origin = (ip = OFFICE) => ({ request: request("/dashboard/access"), context: context(ip) });

async function actorOf(roles: string[], ip = OFFICE): Promise<SessionUser & { cookie: string }> {
  const user = await signedIn(roles);
  const me = await getSessionUser({
    request: request("/dashboard", { cookie: user.cookie }),
    context: context(ip),
  });
  return { ...me!, cookie: user.cookie };
}

const passed = async () => new Response("passed");
function gate(path: string, ip: string, init: Parameters<typeof request>[1] = {}) {
  const pattern = path.split("?")[0]!;
  return run(() =>
    accessGateMiddleware(
      { request: request(path, init), context: context(ip), params: {}, pattern } as never,
      passed as never,
    ),
  );
}

const patch = async (cookie: string, name: string, body: unknown, ip = OFFICE) => {
  const res = await run(() =>
    roleRoute.action(
      args(
        request(`/api/roles/${name}`, {
          cookie,
          method: "PATCH",
          body: JSON.stringify(body),
          headers: { "Content-Type": "application/json" },
        }),
        { name },
        context(ip),
      ),
    ),
  );
  expect(answerProblem("PATCH", `/api/roles/${name}`, res.status, res.body)).toBeNull();
  return res;
};

const networksOf = async (name: string) =>
  JSON.parse(
    (
      await db()
        .selectFrom("role")
        .select("allowed_networks")
        .where("name", "=", name)
        .executeTakeFirstOrThrow()
    ).allowed_networks,
  );

let root: SessionUser & { cookie: string };

beforeAll(async () => {
  await setupDatabase();
  root = await actorOf(["super_admin"]);
  for (const name of ["vpn_only", "scoped_vpn", "lockable"])
    await createRole(root, { name, label: name, permissions: ["dashboard.access", "user.read"] }, origin());
});

describe("the rule's input", () => {
  it("keeps ranges in their network form, a bare address as itself, IPv6 too", () => {
    expect(cidrSchema.parse(" 10.1.2.3/8 ")).toBe("10.0.0.0/8");
    expect(cidrSchema.parse("192.0.2.7")).toBe("192.0.2.7/32");
    expect(cidrSchema.parse("2001:db8:1::5/32")).toBe("2001:db8::/32");
    expect(cidrSchema.parse("::1")).toBe("::1/128");
    expect(networksSchema.parse(["10.0.0.0/8", "10.9.9.9/8"])).toEqual(["10.0.0.0/8"]);
  });

  it("refuses what is not a range, and more than 50", () => {
    for (const bad of [
      "10.0.0.0/33",
      "nope",
      "10.0.0/8",
      "1.2.3.4/8/8",
      "::1/129",
      "",
      "10.0.0.0/-1",
      "x".repeat(100),
    ])
      expect(cidrSchema.safeParse(bad).success, bad).toBe(false);
    const issue = cidrSchema.safeParse("10.0.0.0/33").error!.issues[0]!;
    expect(issue).toMatchObject({ message: "access.networks.invalid", params: { value: "10.0.0.0/33" } });
    expect(networksSchema.safeParse(Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`)).success).toBe(
      false,
    );
  });
});

describe("PATCH /api/roles/:name {allowedNetworks}", () => {
  it("sets the rule, lists it, audits before and after; an empty list lifts it", async () => {
    const res = await patch(root.cookie, "vpn_only", { allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "vpn_only", allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"] });
    expect(await networksOf("vpn_only")).toEqual(["10.0.0.0/8", "2001:db8::/32"]);
    const listed = await run(() =>
      rolesRoute.loader(args(request("/api/roles", { cookie: root.cookie }), {}, context(OFFICE))),
    );
    expect((listed.body as { roles: { name: string; allowedNetworks: string[] }[] }).roles).toContainEqual(
      expect.objectContaining({ name: "vpn_only", allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"] }),
    );
    const row = await db()
      .selectFrom("audit_log")
      .select(["details", "actor_id"])
      .where("action", "=", "role.networks.update")
      .executeTakeFirstOrThrow();
    expect(row.actor_id).toBe(root.id);
    expect(JSON.parse(row.details!)).toMatchObject({ before: [], after: ["10.0.0.0/8", "2001:db8::/32"] });

    expect((await patch(root.cookie, "lockable", { allowedNetworks: ["10.0.0.0/8"] })).status).toBe(200);
    expect((await patch(root.cookie, "lockable", { allowedNetworks: [] })).status).toBe(200);
    expect(await networksOf("lockable")).toEqual([]);
  });

  it("refuses a malformed range on its field and writes nothing", async () => {
    const res = await patch(root.cookie, "scoped_vpn", { allowedNetworks: ["10.0.0.0/8", "10.0.0.0/33"] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "invalid_request", field: "allowedNetworks.1" });
    expect(await networksOf("scoped_vpn")).toEqual([]);
  });

  it("is refused to someone who cannot manage the role: an admin on Super Admin, a manager anywhere", async () => {
    const admin = await actorOf(["admin"]);
    expect((await patch(admin.cookie, "super_admin", { allowedNetworks: ["10.0.0.0/8"] })).status).toBe(403);
    const manager = await actorOf(["manager"]);
    expect((await patch(manager.cookie, "scoped_vpn", { allowedNetworks: ["10.0.0.0/8"] })).status).toBe(403);
    expect(await networksOf("super_admin")).toEqual([]);
    expect(await networksOf("scoped_vpn")).toEqual([]);
  });

  it("never locks out its author where they stand, nor every super admin", async () => {
    const admin = await actorOf(["admin"]);
    // The author holds the role and is at home: the rule would shut them out.
    const mine = await patch(admin.cookie, "admin", { allowedNetworks: ["10.0.0.0/8"] }, HOME);
    expect(mine.status).toBe(403);
    expect(JSON.stringify(mine.body)).toContain(HOME);
    // Every super admin holds "lockable": a rule leaving out where the author is leaves no way back.
    const admins = await db()
      .selectFrom("user_role")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select("user_role.user_id")
      .where("role.name", "=", "super_admin")
      .execute();
    const lockable = [...(await roleGrants()).values()].find((r) => r.name === "lockable")!;
    for (const { user_id } of admins)
      await db()
        .insertInto("user_role")
        .values({ user_id, role_id: lockable.id, team_id: null, granted_at: now() } as never)
        .execute();
    const everyone = await patch(admin.cookie, "lockable", { allowedNetworks: ["10.0.0.0/8"] }, HOME);
    expect(everyone.status).toBe(403);
    expect(await networksOf("lockable")).toEqual([]);
    // From inside the range it is fine.
    expect((await patch(admin.cookie, "lockable", { allowedNetworks: ["10.0.0.0/8"] }, OFFICE)).status).toBe(
      200,
    );
    // And Super Admin's own rule, set by a super admin from inside it.
    const own = await patch(root.cookie, "super_admin", { allowedNetworks: ["10.0.0.0/8", "::1/128"] });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await patch(root.cookie, "super_admin", { allowedNetworks: ["192.0.2.0/24"] })).status).toBe(403);
    expect((await patch(root.cookie, "super_admin", { allowedNetworks: [] })).status).toBe(200);
    expect((await patch(root.cookie, "lockable", { allowedNetworks: [] })).status).toBe(200);
  });
});

describe("using a session from outside", () => {
  it("answers 403 network_not_allowed on pages and the API, and lets the office in", async () => {
    const holder = await signedIn(["vpn_only"]);
    const page = await gate("/dashboard/users", HOME, { cookie: holder.cookie });
    expect(page.status).toBe(403);
    expect(page.body).toMatchObject({ error: "network_not_allowed" });
    expect((page.body as { message: string }).message).toContain(HOME);
    // The allowed ranges are never shown to the person refused.
    expect(JSON.stringify(page.body)).not.toContain("10.0.0.0");
    const api = await gate("/api/users", HOME, { cookie: holder.cookie });
    expect(api).toMatchObject({ status: 403, body: { error: "network_not_allowed" } });
    expect((await gate("/api/events", HOME, { cookie: holder.cookie })).status).toBe(403);
    expect((await gate("/dashboard/users", OFFICE, { cookie: holder.cookie })).body).toBe("passed");
    expect((await gate("/dashboard/users", "::ffff:10.200.0.1", { cookie: holder.cookie })).body).toBe(
      "passed",
    );
    expect((await gate("/dashboard/users", "2001:db8::77", { cookie: holder.cookie })).body).toBe("passed");
    // Someone without the role is not concerned.
    const other = await signedIn(["admin"]);
    expect((await gate("/dashboard/users", HOME, { cookie: other.cookie })).body).toBe("passed");
  });

  it("a grant within a team counts, an expired one does not; a rule lifted applies at the next request", async () => {
    await patch(root.cookie, "scoped_vpn", { allowedNetworks: ["10.0.0.0/8"] });
    const team = randomUUID();
    await db()
      .insertInto("team")
      .values({ id: team, name: "Field", created_at: now(), updated_at: now() } as never)
      .execute();
    const scoped = await signedIn(["user"]);
    const role = [...(await roleGrants()).values()].find((r) => r.name === "scoped_vpn")!;
    await db()
      .insertInto("user_role")
      .values({ user_id: scoped.id, role_id: role.id, team_id: team, granted_at: now() } as never)
      .execute();
    expect((await gate("/dashboard", HOME, { cookie: scoped.cookie })).status).toBe(403);
    await db()
      .updateTable("user_role")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", scoped.id)
      .where("role_id", "=", role.id)
      .execute();
    const expired = await signedIn(["user"]);
    await db()
      .insertInto("user_role")
      .values({
        user_id: expired.id,
        role_id: role.id,
        team_id: team,
        granted_at: now(),
        expires_at: new Date(Date.now() - 1000).toISOString(),
      } as never)
      .execute();
    expect((await gate("/dashboard", HOME, { cookie: expired.cookie })).body).toBe("passed");
    const holder = await signedIn(["scoped_vpn"]);
    expect((await gate("/dashboard", HOME, { cookie: holder.cookie })).status).toBe(403);
    await patch(root.cookie, "scoped_vpn", { allowedNetworks: [] });
    expect((await gate("/dashboard", HOME, { cookie: holder.cookie })).body).toBe("passed");
  });

  it("viewing as someone, the super admin's own rule still applies", async () => {
    const viewer = await signedIn(["super_admin", "vpn_only"]);
    const viewed = await createUser({ roles: ["user"] });
    await db()
      .updateTable("session")
      .set({
        impersonated_user_id: viewed.id,
        impersonation_expires_at: new Date(Date.now() + 10 * 60_000).toISOString(),
      })
      .where("user_id", "=", viewer.id)
      .execute();
    await invalidateSessions();
    expect((await gate("/dashboard/users", HOME, { cookie: viewer.cookie })).status).toBe(403);
    expect((await gate("/dashboard/users", OFFICE, { cookie: viewer.cookie })).body).toBe("passed");
  });

  it("an API token carries its owner's rule", async () => {
    const owner = await actorOf(["vpn_only"]);
    const { secret } = await createApiToken(
      owner,
      { name: "script", permissions: ["dashboard.access", "user.read"], expiresInDays: 30 },
      origin(),
    );
    const bearer = { headers: { Authorization: `Bearer ${secret}` } };
    expect(await gate("/api/users", HOME, bearer)).toMatchObject({
      status: 403,
      body: { error: "network_not_allowed" },
    });
    expect((await gate("/api/users", OFFICE, bearer)).body).toBe("passed");
  });
});

describe("signing in from outside", () => {
  const login = (email: string, password: string, ip: string) =>
    run(() => loginAction(args(formRequest("/login", { email, password }), {}, context(ip))));

  it("is refused after the password, with no session, audited; from the office it signs in", async () => {
    resetRateLimits();
    const user = await createUser({ roles: ["vpn_only"] });
    const wrong = await login(user.email, "not the password", HOME);
    expect(wrong.status).not.toBe(403);
    const refused = await login(user.email, PASSWORD, HOME);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "network_not_allowed" });
    expect(refused.headers.get("Set-Cookie") ?? "").not.toContain("__session=");
    const sessions = await db().selectFrom("session").select("id").where("user_id", "=", user.id).execute();
    expect(sessions).toEqual([]);
    const row = await db()
      .selectFrom("audit_log")
      .select(["ip", "details"])
      .where("action", "=", "auth.login.network_refused")
      .where("actor_id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(row.ip).toBe(HOME);
    const ok = await login(user.email, PASSWORD, OFFICE);
    expect(ok.status).toBe(302);
  });
});

describe("the preview and the page", () => {
  it("lists the holders who acted from addresses the rule leaves out in the last 30 days", async () => {
    const role = [...(await roleGrants()).values()].find((r) => r.name === "vpn_only")!;
    const away = await createUser({ roles: ["vpn_only"], name: "Away Person" });
    const inside = await createUser({ roles: ["vpn_only"], name: "Inside Person" });
    const old = await createUser({ roles: ["vpn_only"], name: "Long Ago" });
    const row = (actor: string, ip: string, at: string) => ({
      id: randomUUID(),
      actor_id: actor,
      actor_email: "x@example.test",
      action: "auth.login.succeeded",
      ip,
      created_at: at,
    });
    await db()
      .insertInto("audit_log")
      .values([
        row(away.id, "198.51.100.9", now()),
        row(inside.id, "10.4.4.4", now()),
        row(old.id, "198.51.100.10", new Date(Date.now() - 40 * 86_400_000).toISOString()),
      ] as never)
      .execute();
    const preview = await networkRulePreview(role.id, ["10.0.0.0/8"]);
    const names = preview.people.map((p) => p.name);
    expect(names).toContain("Away Person");
    expect(names).not.toContain("Inside Person");
    expect(names).not.toContain("Long Ago");
    expect(preview.people.find((p) => p.name === "Away Person")?.addresses).toEqual(["198.51.100.9"]);
    expect((await networkRulePreview(role.id, [])).total).toBe(0);
  });

  it("the page previews without writing, saves with a toast, refuses bad input on the field", async () => {
    const post = (body: Record<string, string>) =>
      run(() =>
        networksPage.action(
          args(
            formRequest("/dashboard/access/roles/lockable/policy", body, { cookie: root.cookie }),
            { name: "lockable" },
            context(OFFICE),
          ),
        ),
      );
    const role = [...(await roleGrants()).values()].find((r) => r.name === "lockable")!;
    const preview = await post({ intent: "preview", roleId: role.id, networks: "10.0.0.0/8\n192.0.2.0/24" });
    expect(preview.body).toMatchObject({ intent: "preview", networks: ["10.0.0.0/8", "192.0.2.0/24"] });
    expect(await networksOf("lockable")).toEqual([]);
    const bad = await post({ intent: "save", roleId: role.id, networks: "10.0.0.0/8\nnope" });
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: Record<string, string> }).errors.networks).toContain("nope");
    const saved = await post({ intent: "save", roleId: role.id, networks: "10.0.0.0/8, 192.0.2.0/24" });
    expect(saved.status).toBe(302);
    expect(await networksOf("lockable")).toEqual(["10.0.0.0/8", "192.0.2.0/24"]);
    const manager = await actorOf(["manager"]);
    const page = await run(() =>
      networksPage.loader(
        args(request("/dashboard/access/roles/lockable/policy", { cookie: manager.cookie }), {
          name: "lockable",
        }),
      ),
    );
    expect(page.status).toBe(403);
    const missing = await run(() =>
      networksPage.loader(
        args(
          request("/dashboard/access/roles/nope/policy", { cookie: root.cookie }),
          { name: "nope" },
          context(OFFICE),
        ),
      ),
    );
    expect(missing.status).toBe(404);
  });
});

describe("open event streams", () => {
  /** The stream's own request, with an abort of its own so a stream the rule missed is still ended. */
  async function openStream(cookie: string, ip: string) {
    const controller = new AbortController();
    const req = new Request(request("/api/events", { cookie }), { signal: controller.signal });
    const res = (await eventsRoute.loader(args(req, {}, context(ip)) as never)) as Response;
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the opening ping
    return { reader, abort: () => controller.abort() };
  }

  async function endsWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<boolean> {
    const deadline = new Promise<"open">((resolve) => setTimeout(() => resolve("open"), ms));
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "open") return false;
      if (next.done) return true;
    }
  }

  it("end from an address a new rule leaves out, on any instance; one from inside goes on", async () => {
    await createRole(
      root,
      { name: "streamed", label: "streamed", permissions: ["dashboard.access"] },
      origin(),
    );
    const [away, inside] = [await signedIn(["streamed"]), await signedIn(["streamed"])];
    const streams = [await openStream(away.cookie, HOME), await openStream(inside.cookie, OFFICE)];
    try {
      expect(openStreamCount()).toBe(2);
      expect((await patch(root.cookie, "streamed", { allowedNetworks: ["10.0.0.0/8"] })).status).toBe(200);
      // Ended by the recheck the cleared roles cache starts (the deadline is for a hang, not a speed check).
      expect(await endsWithin(streams[0]!.reader, 10_000)).toBe(true);
      expect(openStreamCount()).toBe(1);
      // Its reconnect meets the gate.
      expect((await gate("/api/events", HOME, { cookie: away.cookie })).status).toBe(403);
      // As another instance does when it hears the roles changed: the same recheck, nothing more to end.
      clearLocal("roles");
      expect(await recheckStreams()).toBe(0);
      expect(openStreamCount()).toBe(1);
    } finally {
      for (const stream of streams) stream.abort();
    }
  });
});
