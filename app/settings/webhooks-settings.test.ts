import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { args, run, setupDatabase, signedIn } from "../../test/helpers";
import { formRequest } from "../../test/support/forms";
import { db } from "../db.server";
import { resetEnvCache } from "../env.server";
import { action, loader } from "../routes/dashboard.settings.webhooks/route";

// Settings → Webhooks' intents: only settings.manage; the secret in the answer to creation and
// rotation only; the domain's address rules answer on the field.

beforeAll(async () => {
  await setupDatabase();
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.0/8";
  resetEnvCache();
});
afterAll(() => {
  delete process.env.OUTBOUND_ALLOW_PRIVATE;
  resetEnvCache();
});

const submit = (values: Record<string, string | string[]>, cookie: string) =>
  run(() => action(args(formRequest("/dashboard/settings/webhooks", values, { cookie }))));

describe("Settings → Webhooks", () => {
  it("adds, pauses, rotates and deletes an endpoint; the secret only in the answers that make one", async () => {
    const admin = await signedIn(["admin"]);
    const created = await submit(
      {
        intent: "webhook-create",
        url: "http://127.0.0.1:9/in",
        description: "Ops",
        events: ["user.created", "team.created"],
        enabled: "on",
      },
      admin.cookie,
    );
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      ok: true,
      intent: "webhook-create",
      secret: expect.stringMatching(/^whsec_/),
    });
    const page = await run(() =>
      loader(args(formRequest("/dashboard/settings/webhooks", {}, { cookie: admin.cookie }))),
    );
    const endpoints = (page.body as { endpoints: { id: string; events: string[]; enabled: boolean }[] })
      .endpoints;
    expect(endpoints).toMatchObject([{ events: ["team.created", "user.created"], enabled: true }]);
    expect(JSON.stringify(page.body)).not.toContain((created.body as { secret: string }).secret);
    const id = endpoints[0]!.id;

    expect(
      (await submit({ intent: "webhook-toggle", endpoint: id, enabled: "0" }, admin.cookie)).body,
    ).toMatchObject({ ok: true });
    expect(await db().selectFrom("webhook_endpoint").select("enabled").executeTakeFirstOrThrow()).toEqual({
      enabled: 0,
    });
    const rotated = await submit({ intent: "webhook-rotate", endpoint: id }, admin.cookie);
    expect(rotated.body).toMatchObject({ ok: true, secret: expect.stringMatching(/^whsec_/) });
    expect(
      (await submit({ intent: "webhook-replay", endpoint: id, hours: "24" }, admin.cookie)).body,
    ).toMatchObject({ ok: true });
    expect((await submit({ intent: "webhook-delete", endpoint: id }, admin.cookie)).body).toMatchObject({
      ok: true,
    });
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
  });

  it("refuses someone without settings.manage, a private address and no events", async () => {
    await db().deleteFrom("webhook_endpoint").execute();
    const manager = await signedIn(["manager"]);
    const refused = await submit(
      { intent: "webhook-create", url: "https://example.com/in", events: "*" },
      manager.cookie,
    );
    expect(refused.status).toBe(403);
    const admin = await signedIn(["admin"]);
    const inside = await submit(
      { intent: "webhook-create", url: "https://10.1.2.3/in", events: "user.created" },
      admin.cookie,
    );
    expect(inside.status).toBe(400);
    expect(JSON.stringify(inside.body)).toContain("10.1.2.3");
    const none = await submit({ intent: "webhook-create", url: "https://example.com/in" }, admin.cookie);
    expect(none.status).toBe(400);
    expect((await submit({ intent: "webhook-delete", endpoint: "ep_missing" }, admin.cookie)).status).toBe(
      404,
    );
    // An admin reads the log as filtered for them: the unfiltered stream is a super admin's.
    const stream = await submit(
      { intent: "webhook-create", url: "https://example.com/in", events: "audit.entry" },
      admin.cookie,
    );
    expect(stream.status).toBe(403);
    expect(await db().selectFrom("webhook_endpoint").selectAll().execute()).toEqual([]);
  });
});
