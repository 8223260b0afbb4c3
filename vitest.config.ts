import { defineConfig } from "vitest/config";

// Kept apart from vite.config.ts: the React Router plugin must not run under vitest.
export default defineConfig({
  test: {
    include: [
      "app/**/*.test.ts",
      "db/**/*.test.ts",
      "scripts/**/*.test.ts",
      "emails/**/*.test.ts*",
      "test/**/*.test.ts",
    ],
    setupFiles: ["./test/setup-db.ts"],
    pool: "forks",
    testTimeout: 20_000,
    // Starting the app through Vite (test/app-server.ts) can take over 10 s on a loaded 2-core machine.
    hookTimeout: 60_000,
  },
});
