import { describe, expect, it } from "vitest";
import { countUsers, nameList } from "./name-list";

describe("nameList", () => {
  it("names up to three people, then counts the rest", () => {
    expect(nameList([])).toBe("");
    expect(nameList(["Ada"])).toBe("Ada");
    expect(nameList(["Ada", "Bob"])).toBe("Ada and Bob");
    expect(nameList(["Ada", "Bob", "Cy"])).toBe("Ada, Bob and Cy");
    expect(nameList(["Ada", "Bob", "Cy", "Di"])).toBe("Ada, Bob, Cy and 1 other");
    expect(nameList(["Ada", "Bob", "Cy", "Di", "Ed"])).toBe("Ada, Bob, Cy and 2 others");
    expect(countUsers(1)).toBe("1 user");
    expect(countUsers(2)).toBe("2 users");
  });
});
