import { createRequire } from "node:module";

/**
 * A setup file of every test file, after test/fresh-process.ts: React's production build, as the production server
 * runs it, in place of the development build NODE_ENV=test would pick. React chooses its build
 * when first required, and vitest's workers keep node_modules from file to file (vitest.config.ts),
 * so the first file of each worker loads it here and every later `react` import gets that one
 * (a second call finds it loaded). The development build makes an Error, for its stack, for every
 * element it creates, and checks every prop: on 2026-11-30 it was half the fuzz test's time
 * (test/fuzz-dashboard.test.ts: 51 s of test time with it, 27 s without). What it adds is warnings
 * on the console, which no test reads; the markup rendered is the same. vitest.config.ts compiles
 * JSX for the production runtime to match (`jsxDev: false`: the production build has no jsxDEV).
 */
const nodeEnv = process.env.NODE_ENV;
process.env.NODE_ENV = "production";
try {
  const require = createRequire(import.meta.url);
  for (const id of ["react", "react/jsx-runtime", "react-dom", "react-dom/server", "react-dom/static"])
    require(id);
} finally {
  process.env.NODE_ENV = nodeEnv;
}
