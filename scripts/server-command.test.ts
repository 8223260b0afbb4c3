import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PRODUCTION_NODE_FLAGS, productionServerArgs } from "./server-command";

describe("the production server's command", () => {
  it("npm start and the tests, e2e and benches run the compiled server with the same node flags", () => {
    const start = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } }).scripts
      .start;
    expect(start).toBe(
      `NODE_ENV=production node ${PRODUCTION_NODE_FLAGS.join(" ")} \${BUILD_DIR:-build}/server.js`,
    );
    const build = mkdtempSync(join(tmpdir(), "server-command-"));
    writeFileSync(join(build, "server.js"), "");
    expect(productionServerArgs(build)).toEqual([...PRODUCTION_NODE_FLAGS, join(build, "server.js")]);
  });
});
