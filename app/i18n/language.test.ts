import { describe, expect, it } from "vitest";
import { i18nFor, resolveLanguage, tFor } from "./i18n.server";

const request = (acceptLanguage?: string) =>
  new Request("http://localhost/dashboard", {
    headers: acceptLanguage ? { "Accept-Language": acceptLanguage } : {},
  });

describe("the language of a request", () => {
  it("is the person's own setting first", async () => {
    expect(await resolveLanguage(request("en-US,en;q=0.9"), "de")).toBe("de");
    expect(await resolveLanguage(request("de-DE,de;q=0.9"), "en")).toBe("en");
  });

  it("follows Accept-Language without a setting, or with one we do not have", async () => {
    expect(await resolveLanguage(request("de-CH,de;q=0.9,en;q=0.8"), null)).toBe("de");
    expect(await resolveLanguage(request("de-DE"), "xx")).toBe("de");
  });

  it("is English when nothing matches", async () => {
    expect(await resolveLanguage(request(), null)).toBe("en");
    expect(await resolveLanguage(request("fr-FR,ja;q=0.8"), null)).toBe("en");
  });

  it("translates, and a missing key throws under test instead of showing the key", () => {
    expect(tFor("de")("common:error.notFoundTitle")).toBe("Seite nicht gefunden");
    expect(tFor("xx")("common:error.notFoundTitle")).toBe("Page not found");
    expect(i18nFor("de").language).toBe("de");
    expect(() => tFor("de")("common:error.noSuchKey")).toThrow(/Missing translation/);
  });
});
