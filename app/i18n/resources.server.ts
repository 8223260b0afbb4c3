import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Resource } from "i18next";

// Every language is a folder of JSON files, one per namespace (app/locales/<language>/<namespace>.json):
// adding a folder adds a language. Read once, at first use.
//
// Vite bundles them into the server build (import.meta.glob); scripts run by tsx (the worker, the
// email preview) have no Vite, so they read the folder itself.

type Glob = Record<string, Record<string, unknown>>;

function fromGlob(): Glob | null {
  try {
    return import.meta.glob<Record<string, unknown>>("../locales/*/*.json", {
      eager: true,
      import: "default",
    });
  } catch {
    return null;
  }
}

function fromDisk(): Glob {
  const dir = fileURLToPath(new URL("../locales/", import.meta.url));
  const files: Glob = {};
  for (const language of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, language))) {
      if (file.endsWith(".json"))
        files[`../locales/${language}/${file}`] = JSON.parse(readFileSync(join(dir, language, file), "utf8"));
    }
  }
  return files;
}

let loaded: Resource | undefined;

/** `{ en: { common: {…}, users: {…} }, de: {…} }` */
export function resources(): Resource {
  if (loaded) return loaded;
  const files = fromGlob() ?? fromDisk();
  const all: Resource = {};
  for (const [path, json] of Object.entries(files)) {
    const [language, file] = path.split("/").slice(-2) as [string, string];
    all[language] ??= {};
    all[language][basename(file, ".json")] = json;
  }
  loaded = all;
  return all;
}

/** The languages there are folders for, English first. */
export function supportedLanguages(): string[] {
  return Object.keys(resources()).sort((a, b) => (a === "en" ? -1 : b === "en" ? 1 : a.localeCompare(b)));
}
