import { createElement as h } from "react";
import { renderToString } from "react-dom/server";
import { I18nextProvider, Trans } from "react-i18next";
import { createRoutesStub } from "react-router";
import { describe, expect, it } from "vitest";
import { ImpersonationBanner } from "../components/impersonation-banner";
import { i18nFor } from "./i18n.server";
import { say } from "./message";

// A name, an email or any other value a person typed is data: it is shown as written, never read as
// a template. "{{by}}" stays "{{by}}", "$t(x)" stays "$t(x)", "<strong>" stays text.
const NAME = "{{by}} $t(shell:impersonation.label) {{- email}} <strong>b</strong> &amp; 'q\"";

// The banner needs a data router (useNavigation, useRevalidator): one stub that shows `shown`.
let shown: React.ReactNode = null;
const Stub = createRoutesStub([{ path: "/dashboard", Component: () => shown }]);

function render(language: string, node: React.ReactNode) {
  shown = node;
  const html = renderToString(
    h(I18nextProvider, { i18n: i18nFor(language) }, h(Stub, { initialEntries: ["/dashboard"] })),
  );
  return html.replace(/<!-- -->/g, "");
}

/** Text as React writes it into HTML. */
function esc(text: string) {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;");
}

describe("values are never templates", () => {
  it.each(["en", "de"])(
    "the View-as banner shows the viewed person's name and email literally (%s)",
    (language) => {
      const html = render(
        language,
        h(ImpersonationBanner, {
          name: NAME,
          email: "$t(shell:impersonation.stop)@example.test",
          impersonation: { by: "root@example.test", until: new Date(Date.now() + 600_000).toISOString() },
        }),
      );
      expect(html).toContain(`<strong>${esc(NAME)}</strong>`);
      expect(html).toContain("($t(shell:impersonation.stop)@example.test)");
      // The viewer's own address appears once, where the sentence puts it; not in place of the name.
      expect(html.split("root@example.test")).toHaveLength(2);
      // The button names the person the same way.
      expect(html).toContain(
        esc(language === "de" ? `Ansicht als ${NAME} beenden` : `Stop viewing as ${NAME}`),
      );
    },
  );

  it("every Trans with values keeps them literal (the option lives in i18nOptions, not at each call)", () => {
    const html = render(
      "en",
      h(Trans, {
        i18nKey: "settings:profile.emailIntro",
        values: { email: NAME },
        components: { strong: h("strong") },
      }),
    );
    expect(html).toContain(`<strong>${esc(NAME)}</strong>`);
  });

  it("t() and translated messages keep values literal", () => {
    const t = i18nFor("en").t;
    expect(t("shell:impersonation.stop", { name: NAME })).toBe(`Stop viewing as ${NAME}`);
    expect(t("shell:toaster.dismiss", { message: "$t(shell:impersonation.label)" })).toBe(
      "Dismiss: $t(shell:impersonation.label)",
    );
    const de = i18nFor("de").t;
    expect(say(de, { key: "teams.nameTaken", values: { name: NAME } })).toContain(`„${NAME}“`);
  });
});
