import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // VITE_CACHE_DIR: a dependency cache of its own (the dev server's smoke test starts from an empty one).
  cacheDir: process.env.VITE_CACHE_DIR || undefined,
  plugins: [tailwindcss(), reactRouter()],
  build: { target: "es2022" },
  ssr: { external: ["better-sqlite3", "@node-rs/argon2", "pino"] },
  optimizeDeps: {
    // Development only: the browser's packages are pre-bundled once, when the dev server starts,
    // and never discovered later. Discovery re-bundled on the first page view and reloaded it,
    // answering "504 (Outdated Optimize Dep)" to the modules already asked for, so a fresh clone's
    // pages never hydrated. It also crawled server-only packages (kysely, pg, @node-rs/argon2…):
    // React Router's critical-CSS walk resolves every module the server renders in the browser's
    // environment too, which registered them as browser dependencies. With discovery off only
    // this list is bundled; test/client-graph.test.ts walks what the browser loads and names any
    // package missing here (React Router adds react, react-dom and react-router itself).
    noDiscovery: true,
    include: [
      "@conform-to/react",
      "@conform-to/zod/v4",
      "@conform-to/zod/v4/future",
      "@radix-ui/react-alert-dialog",
      "@radix-ui/react-dialog",
      "@radix-ui/react-dropdown-menu",
      "@radix-ui/react-popover",
      "@radix-ui/react-tabs",
      "cmdk",
      "@radix-ui/react-tooltip",
      "@simplewebauthn/browser",
      "class-variance-authority",
      "clsx",
      "i18next",
      "ipaddr.js",
      "lucide-react",
      "react-i18next",
      "tailwind-merge",
      "zod",
    ],
  },
});
