import { describe, expect, it } from "vitest";
import { HOSTILE_MEMBERS, HOSTILE_PATHS } from "../../test/support/hostile-keys";
import { isHostileKey, jsonProblem, parseClientJson } from "./client-keys";

// The shared guard on keys and paths a client chose (issue 34).

describe("client keys", () => {
  it("names every hostile path and key hostile, and no attribute this product reads", () => {
    for (const path of [...HOSTILE_PATHS, "constructor", "Prototype", "a[__proto__]"])
      expect(isHostileKey(path), path).toBe(true);
    for (const key of [
      "name.givenName",
      'emails[type eq "work"].value',
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
      "constructors",
      "prototyped",
      "__proto",
      "members",
    ])
      expect(isHostileKey(key), key).toBe(false);
  });

  it("refuses hostile keys at any depth and nesting past its bound, without recursing", () => {
    for (const member of HOSTILE_MEMBERS)
      expect(parseClientJson(member), member).toEqual({ ok: false, problem: "hostileKey" });
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(parseClientJson(deep)).toEqual({ ok: false, problem: "tooDeep" });
    expect(jsonProblem({ a: [{ b: { c: "x" } }] })).toBeNull();
    expect(parseClientJson("{")).toEqual({ ok: false, problem: "syntax" });
    expect(parseClientJson('{"userName":"a@b.example","name":{"givenName":"A"}}')).toMatchObject({
      ok: true,
    });
  });
});
