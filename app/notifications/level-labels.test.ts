import { describe, expect, it } from "vitest";
import { tFor } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { NOTICE_LEVELS } from "./levels";

// The broadcast composer names each level by a key built from it (broadcast:level.<level>).
describe("notice levels in the broadcast composer", () => {
  for (const language of supportedLanguages())
    it(`${language} names every level`, () => {
      const t = tFor(language);
      const names = NOTICE_LEVELS.map((level) => t(`broadcast:level.${level}`));
      for (const name of names) expect(name.trim()).not.toBe("");
      expect(new Set(names).size).toBe(NOTICE_LEVELS.length);
    });

  it("German, for example", () => {
    expect(tFor("de")("broadcast:level.critical")).toBe("Kritisch");
  });
});
