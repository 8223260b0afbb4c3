import { afterEach, describe, expect, it } from "vitest";
import { type CacheName, type ClusterLink, catchUp, registerCache, setClusterLink } from "./cluster.server";

function linkWith(generations: Map<CacheName, string>): ClusterLink {
  return {
    announce: async () => {},
    endStreams: async () => {},
    endSessionStreams: async () => {},
    generations: async () => generations,
  };
}

describe("catchUp", () => {
  afterEach(() => setClusterLink(undefined));

  it("clears the caches another instance cleared since, and only those", async () => {
    const cleared: string[] = [];
    registerCache("sessions", () => cleared.push("sessions"));
    registerCache("menu", () => cleared.push("menu"));
    const generations = new Map<CacheName, string>([
      ["sessions", "s1"],
      ["menu", "m1"],
    ]);
    setClusterLink(linkWith(generations));

    await catchUp(); // first met: what was held before is of unknown age
    expect(cleared.sort()).toEqual(["menu", "sessions"]);
    cleared.length = 0;
    await catchUp();
    expect(cleared).toEqual([]);

    generations.set("sessions", "s2");
    await catchUp();
    expect(cleared).toEqual(["sessions"]);
  });

  it("asks nothing on one instance (no link)", async () => {
    const cleared: string[] = [];
    registerCache("roles", () => cleared.push("roles"));
    await catchUp();
    expect(cleared).toEqual([]);
  });
});
