import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { args, request, run, setupDatabase, signedIn } from "../../test/helpers";
import { MailSendError, NotFound, RuleViolation } from "../domain-errors";
import { handleAction, handleIntents } from "./intents.server";

beforeAll(setupDatabase);

function post(cookie: string | undefined, values: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) for (const x of [v].flat()) body.append(k, x);
  return args(
    request("/dashboard/users", {
      method: "POST",
      cookie,
      body,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
  ) as Parameters<typeof handleIntents>[0];
}

const schema = z.object({ name: z.string().trim().min(1, "Enter a name."), tags: z.array(z.string()) });

/** A table whose handlers record what they were given, or throw what the form asks for. */
function table(seen: unknown[]) {
  return {
    save: {
      permission: "user.write" as const,
      schema,
      run: async ({
        input,
        actor,
        intent,
      }: {
        input: z.output<typeof schema>;
        actor: { id: string };
        intent: string;
      }) => {
        seen.push({ input, actor: actor.id, intent });
        return { ok: true as const, saved: input.name };
      },
    },
    fail: {
      run: async ({ form }: { form: FormData }) => {
        const kind = form.get("kind");
        if (kind === "missing") throw new NotFound("teams.notFound");
        if (kind === "rule") throw new RuleViolation("access.superAdminOnly");
        if (kind === "mail") throw new MailSendError("mail.sendFailed.invitation", "The provider said no.");
        throw new Error("a bug");
      },
    },
  };
}

describe("handleIntents", () => {
  it("answers an unknown or missing intent 400 'Unknown action.' and runs nothing", async () => {
    const admin = await signedIn(["super_admin"]);
    const seen: unknown[] = [];
    const forms: Record<string, string>[] = [
      { intent: "nope" },
      {},
      { intent: "toString" },
      { intent: "__proto__" },
    ];
    for (const values of forms) {
      const out = await run(() => handleIntents(post(admin.cookie, values), table(seen)));
      expect(out).toMatchObject({ status: 400, body: { ok: false, formError: "Unknown action." } });
    }
    expect(seen).toEqual([]);
  });

  it("checks the permission before validating: 403 for an invalid form from someone without it", async () => {
    const plain = await signedIn(["user"]);
    const out = await run(() => handleIntents(post(plain.cookie, { intent: "save", name: "" }), table([])));
    expect(out.status).toBe(403);
    expect(out.thrown).toBe(true);
  });

  it("checks the route's permission before reading the body", async () => {
    const plain = await signedIn(["user"]);
    const req = args(
      request("/dashboard/users", {
        method: "POST",
        cookie: plain.cookie,
        body: "{}",
        headers: { "Content-Type": "application/json" },
      }),
    ) as Parameters<typeof handleIntents>[0];
    const out = await run(() => handleIntents(req, table([]), { permission: "user.write" }));
    expect(out.status).toBe(403);
  });

  it("answers invalid fields 400 with the field errors, the intent, and runs nothing", async () => {
    const admin = await signedIn(["super_admin"]);
    const seen: unknown[] = [];
    const out = await run(() =>
      handleIntents(post(admin.cookie, { intent: "save", name: " " }), table(seen)),
    );
    expect(out).toMatchObject({
      status: 400,
      body: { ok: false, intent: "save", errors: { name: "Enter a name." }, formError: null },
    });
    expect(seen).toEqual([]);
  });

  it("maps domain failures: NotFound 404, RuleViolation 403, MailSendError 502; rethrows the rest", async () => {
    const admin = await signedIn(["super_admin"]);
    const answer = (kind: string) =>
      run(() => handleIntents(post(admin.cookie, { intent: "fail", kind }), table([])));
    expect(await answer("missing")).toMatchObject({
      status: 404,
      body: { intent: "fail", formError: "This team does not exist." },
    });
    expect(await answer("rule")).toMatchObject({
      status: 403,
      body: { formError: "Only a super admin can do this." },
    });
    expect(await answer("mail")).toMatchObject({ status: 502, body: { intent: "fail" } });
    await expect(answer("bug")).rejects.toThrow("a bug");
  });

  it("passes the validated input (arrays read with getAll) and the actor to run, and returns its answer", async () => {
    const admin = await signedIn(["super_admin"]);
    const seen: unknown[] = [];
    const out = await run(() =>
      handleIntents(post(admin.cookie, { intent: "save", name: " Ada ", tags: ["a", "b"] }), table(seen)),
    );
    expect(out).toMatchObject({ status: 200, body: { ok: true, saved: "Ada" } });
    expect(seen).toEqual([{ input: { name: "Ada", tags: ["a", "b"] }, actor: admin.id, intent: "save" }]);
  });

  it("infers each handler's input from its schema", async () => {
    const admin = await signedIn(["super_admin"]);
    const out = await handleIntents(post(admin.cookie, { intent: "one", n: "3" }), {
      one: {
        schema: z.object({ n: z.coerce.number() }),
        run: ({ input }) => ({ doubled: input.n * 2 }),
      },
    });
    expect(out).toEqual({ doubled: 6 });
  });

  it("handleAction: the same pipeline with the intent fixed", async () => {
    const admin = await signedIn(["super_admin"]);
    const out = await run(() =>
      handleAction(post(admin.cookie, { name: "" }), "send", { schema, run: () => "sent" }),
    );
    expect(out).toMatchObject({ status: 400, body: { intent: "send", errors: { name: "Enter a name." } } });
  });
});
