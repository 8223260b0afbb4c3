import { createRequire } from "node:module";
import { linkifyit } from "linkify-it";
import { HIDDEN_IN_LINE, HIDDEN_IN_TEXT } from "../app/http/hidden-characters";

// The words of an email template are plain text with `{{placeholders}}` (docs/rules.md, "Email
// templates"). The only link in a mail is the product's own button, so a template that names a
// place to go (a URL, an email address, a host name a mail client would turn into a link) is
// refused, and a placeholder's value (a person's name) that does so is defanged as it goes in.

// Every TLD IANA knows, so "evil.xyz" is caught as a mail client would link it; "St.Louis" is not.
// A JSON package: required, as Node's ESM loader wants an import attribute the build does not keep.
const tlds = createRequire(import.meta.url)("tlds") as string[];
const links = linkifyit({ fuzzyLink: true, fuzzyEmail: true, fuzzyIP: true }).tlds(tlds);

/** Full stops other scripts write, which IDNA reads as ".". */
const OTHER_DOTS = /[\u3002\uff0e\uff61]/g;

/** The first URL, email address or host name in `text`, as written; null when there is none. */
export function linkIn(text: string): string | null {
  const matches = links.match(text.replace(OTHER_DOTS, "."));
  return matches?.[0]?.raw ?? null;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

export type TextProblem =
  | { problem: "hidden" }
  | { problem: "tooLong"; maximum: number }
  | { problem: "link"; link: string }
  | { problem: "braces" }
  | { problem: "placeholder"; placeholder: string };

/**
 * What is wrong with one field's text, or null: hidden characters (line breaks only where
 * `multiline`), over `maximum`, a link, a `{{` or `}}` that opens or closes no placeholder, or a
 * placeholder that is not one of `allowed`.
 */
export function textProblem(
  text: string,
  rules: { maximum: number; multiline: boolean; allowed: readonly string[] },
): TextProblem | null {
  if ((rules.multiline ? HIDDEN_IN_TEXT : HIDDEN_IN_LINE).test(text)) return { problem: "hidden" };
  if (text.length > rules.maximum) return { problem: "tooLong", maximum: rules.maximum };
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (!rules.allowed.includes(match[1]!)) return { problem: "placeholder", placeholder: `{{${match[1]}}}` };
  }
  const rest = text.replace(PLACEHOLDER, " ");
  if (rest.includes("{{") || rest.includes("}}")) return { problem: "braces" };
  const link = linkIn(rest);
  return link ? { problem: "link", link } : null;
}

/** A value as it may stand in a mail: any link in it broken (`evil[.]com`, `a[at]b[.]org`). */
export function defang(value: string): string {
  const matches = links.match(value.replace(OTHER_DOTS, "."));
  if (!matches) return value;
  let out = "";
  let from = 0;
  for (const m of matches) {
    out += value.slice(from, m.index);
    out += value
      .slice(m.index, m.lastIndex)
      .replace(/[.\u3002\uff0e\uff61]/g, "[.]")
      .replace(/@/g, "[at]")
      .replace(/:\/\//g, "[:]//");
    from = m.lastIndex;
  }
  return out + value.slice(from);
}

/** The text with each placeholder replaced by its value, defanged; an absent value is empty. */
export function fillTemplate(text: string, values: Readonly<Record<string, string | undefined>>): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return value ? defang(value) : "";
  });
}
