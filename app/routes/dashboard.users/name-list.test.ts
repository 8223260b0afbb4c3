import { describe, expect, it } from "vitest";
import { tFor } from "../../i18n/i18n.server";
import { nameList } from "./name-list";

describe("nameList", () => {
  it("names up to three people, then counts the rest", () => {
    expect(nameList([])).toBe("");
    expect(nameList(["Ada"])).toBe("Ada");
    expect(nameList(["Ada", "Bob"])).toBe("Ada and Bob");
    expect(nameList(["Ada", "Bob", "Cy"])).toBe("Ada, Bob and Cy");
    expect(nameList(["Ada", "Bob", "Cy", "Di"])).toBe("Ada, Bob, Cy and 1 other");
    expect(nameList(["Ada", "Bob", "Cy", "Di", "Ed"])).toBe("Ada, Bob, Cy and 2 others");
  });

  it("joins and counts in German", () => {
    const t = tFor("de");
    const words = { language: "de", others: (count: number) => t("users:bulk.others", { count }) };
    expect(nameList(["Ada", "Bob"], words)).toBe("Ada und Bob");
    expect(nameList(["Ada", "Bob", "Cy", "Di"], words)).toBe("Ada, Bob, Cy und 1 weitere Person");
    expect(nameList(["Ada", "Bob", "Cy", "Di", "Ed"], words)).toBe("Ada, Bob, Cy und 2 weitere Personen");
    expect(t("users:count", { count: 1 })).toBe("1 Benutzer");
  });
});
