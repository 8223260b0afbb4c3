import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillTemplate } from "./fill-template";
import { i18nFor } from "./i18n.server";
import { resources, supportedLanguages } from "./resources.server";

/** Every string of a language as `ns:path`, with its text. */
function strings(language: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (ns: string, prefix: string, node: unknown) => {
    if (typeof node === "string") out.push([`${ns}:${prefix}`, node]);
    else if (node && typeof node === "object")
      for (const [k, v] of Object.entries(node)) walk(ns, prefix ? `${prefix}.${k}` : k, v);
  };
  for (const [ns, tree] of Object.entries(resources()[language] ?? {})) walk(ns, "", tree);
  return out;
}

const names = (text: string) => [...text.matchAll(/\{\{-?\s*([A-Za-z_]\w*)/g)].map((m) => m[1]!);

// Values that would go wrong if filled twice or read as markup or a template.
const hostile = fc.constantFrom("{{name}}", "$t(common:app.name)", "<b>x</b>", "a & b", "$&", "", "Zoë");
const value = fc.oneof(
  fc.string(),
  hostile,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constant(1234567.5),
);

describe("fillTemplate", () => {
  it("answers exactly what i18next answers, for every string of every language, or leaves it to i18next", () => {
    let filled = 0;
    for (const language of supportedLanguages()) {
      const i18n = i18nFor(language);
      for (const [key, text] of strings(language)) {
        const wanted = [...new Set(names(text))];
        fc.assert(
          fc.property(fc.tuple(...wanted.map(() => value)), (picked) => {
            const values = Object.fromEntries(wanted.map((n, i) => [n, picked[i]]));
            const fast = fillTemplate(i18n, language, key, values);
            if (fast === undefined) return;
            filled++;
            expect(fast, `${language} ${key}`).toBe(i18n.t(key, values));
          }),
          { numRuns: wanted.length ? 8 : 1, seed: 35 },
        );
      }
    }
    // Most strings take the fast way; were it never taken, this test would compare nothing.
    expect(filled).toBeGreaterThan(1000);
  });

  it("leaves plurals, context, nesting, other formats, missing values and unknown keys to i18next", () => {
    const en = i18nFor("en");
    expect(fillTemplate(en, "en", "overview:chart.summary", { series: "Tasks", total: 3, days: 14 })).toBe(
      "Tasks: 3 in 14 days",
    );
    expect(
      fillTemplate(en, "en", "overview:chart.summary", { series: "Tasks", total: 3, count: 3 }),
    ).toBeUndefined();
    expect(
      fillTemplate(en, "en", "overview:chart.day", { day: "1 Nov", values: "x", context: "a" }),
    ).toBeUndefined();
    expect(
      fillTemplate(en, "en", "overview:chart.day", { day: "1 Nov", values: "x", lng: "de" }),
    ).toBeUndefined();
    // A number option Intl would read changes i18next's formatting: not ours to guess.
    expect(
      fillTemplate(en, "en", "overview:chart.summary", { series: "T", total: 3, days: 1, style: "percent" }),
    ).toBeUndefined();
    expect(fillTemplate(en, "en", "overview:chart.day", { day: "1 Nov" })).toBeUndefined();
    expect(fillTemplate(en, "en", "overview:chart.day", { day: "1 Nov", values: { a: 1 } })).toBeUndefined();
    expect(fillTemplate(en, "en", "overview:no.such.key", { a: "b" })).toBeUndefined();
    expect(fillTemplate(en, "en", "overview:chart", { a: "b" })).toBeUndefined();
    const nested = strings("en").find(([, text]) => text.includes("$t("));
    expect(nested).toBeDefined();
    expect(fillTemplate(en, "en", nested![0], {})).toBeUndefined();
  });

  it("fills a German key from the German strings, with German numbers", () => {
    const de = i18nFor("de");
    expect(
      fillTemplate(de, "de", "overview:chart.summary", { series: "Aufgaben", total: 1234, days: 14 }),
    ).toBe(de.t("overview:chart.summary", { series: "Aufgaben", total: 1234, days: 14 }));
    expect(
      fillTemplate(de, "de", "overview:chart.summary", { series: "A", total: 1234, days: 14 }),
    ).toContain("1.234");
  });
});
