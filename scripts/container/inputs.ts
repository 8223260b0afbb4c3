import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

// What the image and the compose stack are made of. `npm run test:container` takes minutes, so
// `npm test` runs it only when these differ from what it last passed on: a passing run writes
// their hash into inputs.sha256, committed with them. `tsx scripts/container/inputs.ts --changed`
// exits 0 when they differ (.ci/run then installs podman).

const root = resolve(import.meta.dirname, "../..");
const STAMP = join(root, "scripts/container/inputs.sha256");
const FILES = ["Dockerfile", ".dockerignore", "compose.yaml", "package-lock.json", "docs/deploy/haproxy.cfg"];
const FOLDER = "scripts/container";

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function inputsHash(): string {
  const hash = createHash("sha256");
  const files = [...FILES, ...filesUnder(FOLDER).filter((f) => join(root, f) !== STAMP)].sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : "(missing)");
    hash.update("\0");
  }
  return hash.digest("hex");
}

export function containerInputsChanged(): boolean {
  return !existsSync(STAMP) || readFileSync(STAMP, "utf8").trim() !== inputsHash();
}

export function writeInputsStamp() {
  writeFileSync(STAMP, `${inputsHash()}\n`);
  console.log(`${relative(root, STAMP)} written`);
}

if (process.argv[1] === import.meta.filename && process.argv.includes("--changed"))
  process.exit(containerInputsChanged() ? 0 : 1);
