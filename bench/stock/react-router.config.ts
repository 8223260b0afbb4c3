import type { Config } from "@react-router/dev/config";

// The yardstick of docs/decisions/013-request-path.md: React Router's defaults, nothing added (server rendering on).
export default { ssr: true } satisfies Config;
