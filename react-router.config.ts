import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // BUILD_DIR lets parallel end-to-end runs keep separate builds.
  buildDirectory: process.env.BUILD_DIR ?? "build",
  // Every flag React Router 7.18 offers for version 8, so the upgrade is a version bump
  // (docs/decisions/027-backup-and-upgrades.md).
  future: {
    v8_middleware: true,
    v8_splitRouteModules: true,
    v8_viteEnvironmentApi: true,
    v8_passThroughRequests: true,
    v8_trailingSlashAwareDataRequests: true,
  },
} satisfies Config;
