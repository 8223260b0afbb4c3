import type { Config } from "@react-router/dev/config";

// The yardstick of issue 10: React Router's defaults, nothing added (server rendering on).
export default { ssr: true } satisfies Config;
