import { describe, expect, it } from "vitest";
import { SEED_MENU_ITEMS } from "../../access/menu";
import { tFor } from "../../i18n/i18n.server";
import { menuLabel } from "../sidebar-labels";
import { morePages, pageKeywords, settingsEntries } from "./palette-entries";
import { matchScore, rank } from "./palette-match";

const SECTIONS = [
  "profile",
  "security",
  "api-tokens",
  "invite",
  "system",
  "webhooks",
  "sso",
  "directory",
] as const;

function entries(language: string) {
  const t = tFor(language);
  return [
    ...SEED_MENU_ITEMS.map((p) => ({ label: menuLabel(t, p), keywords: pageKeywords(t, p.url) })),
    ...morePages(t, () => true),
    ...settingsEntries(t, [...SECTIONS]),
  ];
}

describe("the palette's matching", () => {
  // The words of the staff pass that found nothing (issue 36, 4) that name a page.
  it.each([
    ["disable", "Users"],
    ["role", "Access Control"],
    ["webhook", "Webhooks"],
    ["scim", "Directory provisioning"],
    ["token", "API tokens"],
    ["task", "Your tasks"],
    ["language", "Profile"],
    ["view", "Users"],
    ["report", "Your tasks"],
  ])("“%s” finds %s first", (word, first) => {
    expect(rank(entries("en"), word, (e) => e).map((e) => e.label)[0]).toBe(first);
  });

  it.each([
    ["rolle", "Zugriffskontrolle"],
    ["sprache", "Profil"],
    ["deaktivieren", "Benutzer"],
    ["role", "Zugriffskontrolle"],
  ])("in German, “%s” finds %s first", (word, first) => {
    expect(rank(entries("de"), word, (e) => e).map((e) => e.label)[0]).toBe(first);
  });

  it("forgives a missing letter, not letters scattered across the text", () => {
    expect(matchScore({ label: "Users" }, "usrs")).toBeGreaterThan(0);
    expect(matchScore({ label: "Audit Logs" }, "adt")).toBe(0);
    expect(matchScore({ label: "Audit Logs" }, "zzzz")).toBe(0);
  });

  it("puts the whole name before a keyword, and keeps every item for an empty query", () => {
    const items = [
      { label: "Teams", keywords: ["users"] },
      { label: "Users", keywords: [] },
    ];
    expect(rank(items, "users", (i) => i).map((i) => i.label)).toEqual(["Users", "Teams"]);
    expect(rank(items, " ", (i) => i)).toEqual(items);
  });
});
