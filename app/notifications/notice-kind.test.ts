import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { args, PASSWORD, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { formRequest } from "../../test/support/forms";
import { RecordingRunner } from "../../test/tasks";
import { db } from "../db.server";
import { systemBus } from "../events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../events/event-types";
import { loader as notificationsLoader } from "../routes/api.notifications";
import { action as broadcastAction } from "../routes/dashboard.broadcast";
import { action as settingsAction } from "../routes/dashboard.settings.system/route";
import { resetRateLimits } from "../security/rate-limit.server";
import { clearSystemConfigCache } from "../system-settings/system-config.server";
import { setTaskRunner } from "../tasks/runner.server";
import { sendBroadcast } from "./broadcast.server";

// docs/rules.md, "Broadcast": anyone with settings.manage could broadcast to the super admins a
// notice that looked exactly like the security notice of a settings change (same bell entry, same
// event), with a link to a host of their choosing. Broadcasts now always name their sender, only
// the app's own notices carry the Security marker, and a broadcast links inside the app only.

withFakePostmark();
beforeAll(async () => {
  await setupDatabase();
  setTaskRunner(new RecordingRunner());
});
beforeEach(async () => {
  resetRateLimits();
  await db().deleteFrom("notification").execute();
  await db().deleteFrom("system_setting").execute();
  clearSystemConfigCache();
});

type BellItem = {
  id: string;
  title: string;
  kind: string;
  sender: string | null;
  link: string | null;
};

async function bell(cookie: string) {
  const out = await run(() => notificationsLoader(args(request("/api/notifications", { cookie }))));
  expect(out.status).toBe(200);
  return (out.body as { notifications: BellItem[] }).notifications;
}

async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

const LOOKALIKE = {
  title: "A mail setting was changed",
  message: "Someone changed where account mail goes. Review it at once.",
  level: "warning",
};

describe("security notices and broadcasts in the bell", () => {
  it("a broadcast names its sender and cannot pass as a security notice; the real one is marked", async () => {
    const admin = await signedIn(["admin"]);
    const root = await signedIn(["super_admin"]);
    // The one who changes the setting gets no notice of it in the app: another super admin reads the bell.
    const reader = await signedIn(["super_admin"]);
    const seen: SystemEvent[] = [];
    const stop = systemBus().subscribe(SYSTEM_EVENT_CHANNEL, reader.id, (e) => seen.push(e));

    // The lookalike, even with a posted kind it has no say in.
    const superAdmins = await roleId("super_admin");
    const sent = await run(() =>
      broadcastAction(
        args(
          formRequest(
            "/dashboard/broadcast",
            {
              ...LOOKALIKE,
              link: "/dashboard/settings/system",
              kind: "security",
              audience: "roles",
              roleIds: [superAdmins],
            },
            { cookie: admin.cookie },
          ),
        ),
      ),
    );
    expect(sent.status).toBe(302);
    // The real notice of a settings change.
    const changed = await run(() =>
      settingsAction(
        args(
          formRequest(
            "/dashboard/settings/system",
            { intent: "system", AUDIT_RETENTION_DAYS: "100", currentPassword: PASSWORD },
            { cookie: root.cookie },
          ),
        ),
      ),
    );
    expect(changed.status).toBe(200);
    stop();

    const items = await bell(reader.cookie);
    const adminName = (
      await db().selectFrom("user").select("name").where("id", "=", admin.id).executeTakeFirstOrThrow()
    ).name;
    const fake = items.find((n) => n.title === LOOKALIKE.title)!;
    expect(fake).toMatchObject({ kind: "broadcast", sender: adminName });
    const real = items.find((n) => n.title !== LOOKALIKE.title)!;
    expect(real).toMatchObject({ kind: "security", sender: null });
    const rows = await db().selectFrom("notification").select(["kind", "broadcast_id"]).execute();
    for (const r of rows) expect(r.kind).toBe(r.broadcast_id ? "broadcast" : "security");

    // Live, the same distinction.
    const live = seen.filter((e) => e.type === "broadcast");
    expect(live).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ title: LOOKALIKE.title, kind: "broadcast", sender: adminName }),
        expect.objectContaining({ kind: "security", sender: null }),
      ]),
    );
  });

  it("refuses a broadcast link to another host (400, nothing sent), at the route and in the domain", async () => {
    const admin = await signedIn(["admin"]);
    for (const link of ["https://evil.example/login", "https://accounts.example.test/settings"]) {
      const out = await run(() =>
        broadcastAction(
          args(
            formRequest(
              "/dashboard/broadcast",
              { ...LOOKALIKE, link, audience: "all" },
              { cookie: admin.cookie },
            ),
          ),
        ),
      );
      expect(out.status, link).toBe(400);
      expect(Object.keys((out.body as { errors: object }).errors)).toEqual(["link"]);
    }
    await expect(
      sendBroadcast(
        admin as never,
        {
          title: "t",
          message: "m",
          level: "info",
          link: "https://evil.example/login",
          audience: { kind: "all" },
          email: false,
        },
        { request: request("/dashboard/broadcast") },
      ),
    ).rejects.toThrow();
    expect(await db().selectFrom("notification").select("id").execute()).toEqual([]);
  });
});
