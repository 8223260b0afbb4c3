import { describe, expect, it } from "vitest";
import { run } from "../../test/helpers";
import { readForm } from "./read-form.server";

const post = (body: BodyInit, type?: string) =>
  new Request("http://localhost:3000/dashboard/teams", {
    method: "POST",
    headers: type ? { "Content-Type": type } : {},
    body,
  });
const urlencoded = "application/x-www-form-urlencoded";

describe("readForm", () => {
  it("reads a urlencoded or multipart form", async () => {
    expect((await readForm(post("name=A+b&x=%C3%A9", urlencoded))).get("x")).toBe("é");
    const data = new FormData();
    data.append("name", "Team");
    expect((await readForm(post(data))).get("name")).toBe("Team");
  });

  // The access gate and the action ask for the same request's form: one parse, one answer.
  it("parses a request once: every caller gets the same form, a byte order mark kept in the key", async () => {
    const request = post(
      new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("intent=a&intent=b")]),
      urlencoded,
    );
    const first = await readForm(request);
    expect(await readForm(request)).toBe(first);
    expect(first.get("intent")).toBe("b");
    expect([...first.keys()]).toEqual(["\uFEFFintent", "intent"]);
    expect(request.bodyUsed).toBe(true);
  });

  // PostgreSQL text cannot hold NUL (the insert fails: a 500), SQLite stores it silently; no
  // person types one, so a form carrying it is refused the same way on both databases.
  it.each([
    ["a value", "intent=create&name=Team&description=a%00b"],
    ["a name", "intent=create&na%00me=Team"],
    ["a repeated value", "roles=x&roles=%00"],
  ])("refuses NUL in %s with 400", async (_, body) => {
    const out = await run(() => readForm(post(body, urlencoded)));
    expect(out.status).toBe(400);
    expect(out.body).toEqual({
      error: "invalid_request",
      message: "Text in a form must not contain NUL characters.",
    });
  });

  it("refuses NUL in a multipart field", async () => {
    const data = new FormData();
    data.append("name", "Te\u0000am");
    expect((await run(() => readForm(post(data)))).status).toBe(400);
  });

  it("still refuses what is not a form (415) before looking at it", async () => {
    expect((await run(() => readForm(post('{"a":"\\u0000"}', "application/json")))).status).toBe(415);
  });
});
