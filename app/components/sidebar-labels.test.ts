import { describe, expect, it } from "vitest";
import { SEED_MENU_ITEMS } from "../access/menu";
import { tFor } from "../i18n/i18n.server";
import { menuLabel, TRANSLATED_MENU_URLS } from "./sidebar-labels";

describe("sidebar labels", () => {
  it("every seeded row has a translation, and English says what the seed wrote", () => {
    expect(SEED_MENU_ITEMS.map((i) => i.url).sort()).toEqual([...TRANSLATED_MENU_URLS].sort());
    for (const item of SEED_MENU_ITEMS) {
      expect(menuLabel(tFor("en"), item)).toBe(item.title);
      // tFor throws under test on a missing key, so each of these is a real German string.
      expect(menuLabel(tFor("de"), item)).not.toBe("");
    }
  });

  it("says seeded rows in German, found by their url", () => {
    const de = tFor("de");
    expect(menuLabel(de, { url: "/dashboard/users", title: "Users" })).toBe("Benutzer");
    expect(menuLabel(de, { url: "/dashboard/settings", title: "Settings" })).toBe("Einstellungen");
  });

  it("keeps the row's own title for a row an admin added or renamed", () => {
    const de = tFor("de");
    expect(menuLabel(de, { url: "/dashboard/reports", title: "Quarterly reports" })).toBe(
      "Quarterly reports",
    );
    expect(menuLabel(de, { url: "/dashboard/logs", title: "Compliance" })).toBe("Compliance");
  });

  it("says the title an admin wrote for the reader's language first, else falls back in order", () => {
    const de = tFor("de");
    const en = tFor("en");
    const renamed = { url: "/dashboard/logs", title: "Compliance", translations: { de: "Prüfpfad" } };
    // 1. The admin's German title, for a renamed seeded row, an unrenamed one and an added one.
    expect(menuLabel(de, renamed)).toBe("Prüfpfad");
    expect(menuLabel(de, { url: "/dashboard/users", title: "Users", translations: { de: "Personal" } })).toBe(
      "Personal",
    );
    expect(
      menuLabel(de, { url: "/dashboard/reports", title: "Reports", translations: { de: "Berichte" } }),
    ).toBe("Berichte");
    // 2. None for German: a seeded row never renamed is said in our German.
    expect(menuLabel(de, { url: "/dashboard/users", title: "Users", translations: {} })).toBe("Benutzer");
    // 3. Else the title as written.
    expect(menuLabel(de, { ...renamed, translations: {} })).toBe("Compliance");
    // A reader in English sees the title as written, or our English for an unrenamed seeded row.
    expect(menuLabel(en, renamed)).toBe("Compliance");
    expect(menuLabel(en, { url: "/dashboard/users", title: "Users", translations: { de: "Personal" } })).toBe(
      "Users",
    );
  });
});
