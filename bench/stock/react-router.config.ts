import type { Config } from "@react-router/dev/config";

// The yardstick of docs/decisions/041-request-path.md: React Router's defaults, nothing added (server rendering on).
export default { ssr: true } satisfies Config;
