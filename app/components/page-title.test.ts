import { UNSAFE_ErrorResponseImpl } from "react-router";
import { describe, expect, it } from "vitest";
import { APP_NAME } from "../config";
import { appNameOf, errorPageName, pageTitle } from "./page-title";

const matches = (appName?: unknown) => [
  { id: "root", loaderData: appName === undefined ? undefined : { appName } },
  { id: "routes/dashboard", loaderData: {} },
];

describe("pageTitle", () => {
  it('is "Page · App name" with the name the root loader read', () => {
    expect(pageTitle(matches("Acme Staff"), "users")).toEqual([{ title: "Users · Acme Staff" }]);
    expect(pageTitle({ appName: "Acme Staff" }, { name: "Ada Lovelace" })).toEqual([
      { title: "Ada Lovelace · Acme Staff" },
    ]);
  });

  it("falls back to the fixed name when the root loader did not run or the name is blank", () => {
    expect(appNameOf(matches())).toBe(APP_NAME);
    expect(appNameOf(matches("  "))).toBe(APP_NAME);
    expect(appNameOf(null)).toBe(APP_NAME);
  });

  it("is in the language the root loader answered in, English when it names none or one we lack", () => {
    expect(pageTitle({ appName: "Acme", language: "de" }, "users")).toEqual([{ title: "Benutzer · Acme" }]);
    expect(pageTitle({ appName: "Acme", language: "xx" }, "users")).toEqual([{ title: "Users · Acme" }]);
    expect(pageTitle({ appName: "Acme" }, "settings")).toEqual([{ title: "Settings · Acme" }]);
  });

  it("is the app name alone without a page", () => {
    expect(pageTitle(matches("Acme Staff"), null)).toEqual([{ title: "Acme Staff" }]);
  });
});

describe("errorPageName", () => {
  // What a boundary receives for a thrown data(…, { status }).
  const caught = (status: number) => new UNSAFE_ErrorResponseImpl(status, "", {});

  it("names 403, 404 and everything else", () => {
    expect(errorPageName(caught(403))).toBe("noAccess");
    expect(errorPageName(caught(404))).toBe("notFound");
    expect(errorPageName(caught(500))).toBe("error");
    expect(errorPageName(new Error("boom"))).toBe("error");
  });
});
