import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { context, createUser, PASSWORD, request, setupDatabase, signedIn } from "../../test/helpers";
import { withFakePostmark } from "../../test/mail-helpers";
import { postPublicForm } from "../../test/support/public-forms";
import { allowPrivate, LOOPBACK } from "../../test/support/sso";
import { db } from "../db.server";
import { InvalidInput } from "../domain-errors";
import { resetEnvCache } from "../env.server";
import { metrics } from "../metrics/metrics.server";
import { action as loginAction } from "../routes/login/route";
import { action as registerAction } from "../routes/register";
import { resetRateLimits } from "../security/rate-limit.server";
import { setSystemConfig } from "../system-settings/system-config.server";
import { changePassword } from "./account.server";
import { forgetBreachRanges, isBreached } from "./breached-passwords.server";
import { getSessionUser } from "./session.server";

// Breached passwords (issue "Sign-in policy" §1): a fake range service on loopback answers like
// the public one (SUFFIX:COUNT lines, padding at count 0); only the hash's first five characters
// are ever sent; the service failing in any way lets the password through, quickly.

withFakePostmark();
const BREACHED = "correct horse battery staple 2";
const CLEAN = "a passphrase nobody has leaked";
const sha1 = (p: string) => createHash("sha1").update(p).digest("hex").toUpperCase();

type Mode = "range" | "garbage" | "slow" | "redirect" | "500";
let mode: Mode = "range";
const asked: string[] = [];
let server: Server;

beforeAll(async () => {
  await setupDatabase();
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    // Never answers: without the check's own timeout the test would wait for vitest's.
    if (mode === "slow") return;
    if (mode === "redirect") return void res.writeHead(302, { Location: "http://example.com/" }).end();
    if (mode === "500") return void res.writeHead(500).end();
    if (mode === "garbage") return void res.end("<html>not a range</html>");
    const prefix = (req.url ?? "").split("/").at(-1)!;
    const hash = sha1(BREACHED);
    const lines = ["0000000000000000000000000000000000A:0"];
    if (prefix === hash.slice(0, 5)) lines.push(`${hash.slice(5)}:42`);
    res.end(lines.join("\r\n"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.PWNED_PASSWORDS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
  allowPrivate(LOOPBACK);
});

afterAll(async () => {
  allowPrivate(undefined);
  delete process.env.PWNED_PASSWORDS_URL;
  resetEnvCache();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  mode = "range";
  asked.length = 0;
  forgetBreachRanges();
  resetRateLimits();
  await setSystemConfig("PASSWORD_BREACH_CHECK", "block", null);
});

const register = (password: string) =>
  postPublicForm("/register", registerAction, {
    name: "Breach test",
    email: `breach-${Math.random().toString(36).slice(2)}@example.test`,
    password,
  });

describe("breached passwords", () => {
  it("sends only five characters of the hash, and knows a listed suffix from padding", async () => {
    expect(await isBreached(BREACHED)).toBe(true);
    expect(await isBreached(CLEAN)).toBe(false);
    expect(asked).toEqual([`/range/${sha1(BREACHED).slice(0, 5)}`, `/range/${sha1(CLEAN).slice(0, 5)}`]);
    // A day's cache: the same prefix is not asked again.
    expect(await isBreached(BREACHED)).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it("block: registering with a breached password is a 400 on `password`, nothing written; a clean one passes", async () => {
    const before = Number(
      (
        await db()
          .selectFrom("user")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const refused = await register(BREACHED);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      errors: { password: expect.stringMatching(/known data breaches/) },
    });
    const after = Number(
      (
        await db()
          .selectFrom("user")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(before);
    expect((await register(CLEAN)).status).toBe(302);
    await setSystemConfig("PASSWORD_BREACH_CHECK", "warn", null);
    expect((await register(BREACHED)).status).toBe(302);
  });

  it("block: signing in with a right but breached password leads to a forced change; off: it does not", async () => {
    const person = await createUser({ roles: ["user"] });
    const { hashPassword } = await import("./password.server");
    await db()
      .updateTable("user")
      .set({ password_hash: await hashPassword(BREACHED) })
      .where("id", "=", person.id)
      .execute();
    const signIn = () => postPublicForm("/login", loginAction, { email: person.email, password: BREACHED });
    await setSystemConfig("PASSWORD_BREACH_CHECK", "off", null);
    expect((await signIn()).status).toBe(302);
    const flag = async () =>
      (
        await db()
          .selectFrom("user")
          .select("must_change_password")
          .where("id", "=", person.id)
          .executeTakeFirstOrThrow()
      ).must_change_password;
    expect(await flag()).toBe(0);
    await setSystemConfig("PASSWORD_BREACH_CHECK", "block", null);
    const blocked = await signIn();
    expect(blocked.status).toBe(302);
    expect(await flag()).toBe(1);
    // The session it started is held at the password gate.
    const cookie = blocked.headers.get("Set-Cookie")!.split(";")[0]!;
    const user = await getSessionUser({ request: request("/dashboard", { cookie }), context: context() });
    expect(user?.mustChangePassword).toBe(true);
    // A wrong password never reaches the check.
    asked.length = 0;
    await postPublicForm("/login", loginAction, { email: person.email, password: `${PASSWORD}x` });
    expect(asked).toEqual([]);
  });

  it("block at a password change: a field error on newPassword, the old password kept; warn: changed, and said", async () => {
    const { cookie, id } = await signedIn(["user"]);
    const user = (await getSessionUser({ request: request("/dashboard", { cookie }), context: context() }))!;
    const origin = { request: new Request("http://localhost/dashboard/settings/security") };
    const hashOf = async () =>
      (await db().selectFrom("user").select("password_hash").where("id", "=", id).executeTakeFirstOrThrow())
        .password_hash;
    const before = await hashOf();
    const refused = await changePassword(
      user,
      { currentPassword: PASSWORD, newPassword: BREACHED },
      origin,
    ).catch((e) => e);
    expect(refused).toBeInstanceOf(InvalidInput);
    expect(refused).toMatchObject({ field: "newPassword" });
    expect(await hashOf()).toBe(before);
    await setSystemConfig("PASSWORD_BREACH_CHECK", "warn", null);
    expect(await changePassword(user, { currentPassword: PASSWORD, newPassword: BREACHED }, origin)).toEqual({
      warn: true,
    });
    expect(await hashOf()).not.toBe(before);
  });

  it("fails open when the service is slow, redirects, errs or answers garbage", async () => {
    const failed = () =>
      metrics()
        .breachChecks.get()
        .then((m) => m.values.find((v) => v.labels.outcome === "unavailable")?.value ?? 0);
    for (const broken of ["garbage", "slow", "redirect", "500"] as Mode[]) {
      mode = broken;
      forgetBreachRanges();
      const before = await failed();
      expect(await isBreached(BREACHED), broken).toBeNull();
      expect(await failed(), broken).toBe(before + 1);
    }
    mode = "500";
    forgetBreachRanges();
    expect((await register(BREACHED)).status).toBe(302);
  });
});
