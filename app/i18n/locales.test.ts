import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { FALLBACK_LANGUAGE } from "./options";
import { resources, supportedLanguages } from "./resources.server";

// Every language says everything English says, with the same placeholders, and every key the code
// names exists: a missing string fails here instead of showing as a raw key on a page.

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

function keysOf(_ns: string, tree: Tree): Map<string, string> {
  return flatten(tree);
}

const placeholders = (text: string) =>
  [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

const all = resources();
const english = all[FALLBACK_LANGUAGE] ?? {};

describe("locales", () => {
  it("has English and German", () => {
    expect(supportedLanguages()).toEqual(expect.arrayContaining(["en", "de"]));
    expect(supportedLanguages()[0]).toBe("en");
  });

  for (const language of supportedLanguages().filter((l) => l !== FALLBACK_LANGUAGE)) {
    it(`${language} has every namespace and key English has, with the same placeholders`, () => {
      const problems: string[] = [];
      for (const [ns, tree] of Object.entries(english)) {
        const theirs = all[language]?.[ns];
        if (!theirs) {
          problems.push(`${language}/${ns}.json is missing`);
          continue;
        }
        const ours = keysOf(ns, tree as Tree);
        const translated = keysOf(ns, theirs as Tree);
        for (const [key, text] of ours) {
          const other = translated.get(key);
          if (other === undefined) problems.push(`${language} ${ns}:${key} is missing`);
          else if (!other.trim()) problems.push(`${language} ${ns}:${key} is empty`);
          else if (placeholders(other).join() !== placeholders(text).join())
            problems.push(
              `${language} ${ns}:${key} has placeholders ${placeholders(other)} not ${placeholders(text)}`,
            );
        }
        for (const key of translated.keys())
          if (!ours.has(key)) problems.push(`${language} ${ns}:${key} is not in English`);
      }
      for (const ns of Object.keys(all[language] ?? {}))
        if (!english[ns]) problems.push(`${language}/${ns}.json has no English file`);
      expect(problems).toEqual([]);
    });
  }

  it("every key the code names exists in English", () => {
    const root = join(import.meta.dirname, "..", "..");
    const files = [...walk(join(root, "app")), ...walk(join(root, "emails"))].filter(
      (f) => /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f),
    );
    const missing: string[] = [];
    const unqualified: string[] = [];
    for (const file of files) {
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/(?<![\w.])t\(\s*["']([^"']+)["']|i18nKey=["']([^"']+)["']/g)) {
        const key = match[1] ?? match[2] ?? "";
        const at = `${relative(root, file)}: ${key}`;
        const [ns, path] = key.includes(":") ? (key.split(/:(.*)/s) as [string, string]) : [null, key];
        if (!ns) {
          unqualified.push(at);
          continue;
        }
        const keys = keysOf(ns, (english[ns] ?? {}) as Tree);
        if (!keys.has(path) && !keys.has(`${path}_one`) && !keys.has(`${path}_other`)) missing.push(at);
      }
    }
    expect(missing).toEqual([]);
    // A key without its namespace would depend on which namespace the component happened to load.
    expect(unqualified).toEqual([]);
  });
});

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
