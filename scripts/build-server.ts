// `npm run build`, after `react-router build`: compiles server.ts into the build directory
// (build/server.js, run by `npm start` as plain JavaScript, no tsx) and writes .br/.gz beside the
// client files worth compressing, which sirv serves (app/http/static-files.server.ts), so no request
// compresses an asset (decision 041). server.ts takes the app from the build's entry, so the bundle
// holds no app module (decision 002). esbuild comes with Vite and tsx; packages stay imports of
// node_modules.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const buildDir = process.env.BUILD_DIR ?? "build";

await build({
  entryPoints: ["server.ts"],
  outfile: join(buildDir, "server.js"),
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});

/** Below this, the headers and the CPU cost more than the bytes saved (`compression`'s threshold too). */
const MIN_COMPRESS_BYTES = 1024;
const TEXT = /\.(?:js|mjs|css|svg|json|webmanifest|map|txt)$/;
function precompress(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) count += precompress(path);
    else if (TEXT.test(entry.name) && statSync(path).size >= MIN_COMPRESS_BYTES) {
      const body = readFileSync(path);
      writeFileSync(
        `${path}.br`,
        brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
      );
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      count++;
    }
  }
  return count;
}
const files = precompress(join(buildDir, "client"));
console.log(`server: ${join(buildDir, "server.js")}; ${files} client files precompressed`);
