import type { ResourceLanguage } from "i18next";

// The browser loads only the language it shows: Vite makes each JSON file its own chunk.
const files = import.meta.glob<Record<string, unknown>>("../locales/*/*.json", { import: "default" });

export async function loadLanguage(language: string): Promise<ResourceLanguage> {
  const bundle: ResourceLanguage = {};
  await Promise.all(
    Object.entries(files)
      .filter(([path]) => path.split("/").at(-2) === language)
      .map(async ([path, load]) => {
        bundle[
          path
            .split("/")
            .at(-1)
            ?.replace(/\.json$/, "") ?? ""
        ] = await load();
      }),
  );
  return bundle;
}

/** Every language there is a folder for, English first, known without loading any of them. */
export const availableLanguages: readonly string[] = [
  ...new Set(Object.keys(files).map((path) => path.split("/").at(-2) ?? "")),
].sort((a, b) => (a === "en" ? -1 : b === "en" ? 1 : a.localeCompare(b)));
