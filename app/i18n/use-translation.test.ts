import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it } from "vitest";
import { i18nFor } from "./i18n.server";
import { useTranslation } from "./use-translation";

let seen: ReturnType<typeof useTranslation>[] = [];
function Probe({ name }: { name: string }) {
  const result = useTranslation();
  seen.push(result);
  const { t } = result;
  return h("p", null, `${t("overview:users.title")} | ${t("overview:welcome", { name })}`);
}

function Missing() {
  const { t } = useTranslation();
  return h("p", null, t("overview:no.such.key"));
}

function render(language: string, name: string) {
  return renderToString(h(I18nextProvider, { i18n: i18nFor(language) }, h(Probe, { name })));
}

describe("useTranslation", () => {
  it("answers in the provider's language, with and without options, again after the text is kept", () => {
    seen = [];
    expect(render("en", "Ada")).toBe("<p>Users | Welcome, Ada</p>");
    expect(render("de", "Ada")).toBe("<p>Benutzer | Willkommen, Ada</p>");
    // The kept option-less text belongs to its language; options are applied every time.
    expect(render("en", "Grace")).toBe("<p>Users | Welcome, Grace</p>");
    expect(render("de", "Grace")).toBe("<p>Benutzer | Willkommen, Grace</p>");
  });

  it("hands out the provider's own instance and one t per language", () => {
    seen = [];
    render("en", "a");
    render("en", "b");
    render("de", "c");
    const [first, second, german] = seen;
    expect(first!.i18n).toBe(i18nFor("en"));
    expect(german!.i18n).toBe(i18nFor("de"));
    expect(second!.t).toBe(first!.t);
    expect(german!.t).not.toBe(first!.t);
  });

  it("passes keys it does not know to i18next each time (under test a missing key throws)", () => {
    const once = () => renderToString(h(I18nextProvider, { i18n: i18nFor("en") }, h(Missing)));
    expect(once).toThrow(/Missing translation/);
    expect(once).toThrow(/Missing translation/);
  });
});
