import { existsSync } from "node:fs";

/** Loads .env into process.env without overriding what the shell already set. */
export function loadDotEnv(path = ".env") {
  if (existsSync(path)) process.loadEnvFile(path);
}
