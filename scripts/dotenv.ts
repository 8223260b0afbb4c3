import { existsSync } from "node:fs";

/** The environment file: `.env`, or ENV_FILE's (a second checkout, the dev server's smoke test). */
export function envFilePath(): string {
  return process.env.ENV_FILE || ".env";
}

/** Loads .env into process.env without overriding what the shell already set. */
export function loadDotEnv(path = envFilePath()) {
  if (existsSync(path)) process.loadEnvFile(path);
}
