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
/** Invisible characters a reader (and a mail client's link finder) skips: soft hyphen, joiners, variation selectors. */
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each is removed alone, the combining grapheme joiner too
  /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/g;
/** A scheme (`hxxp://` too: some clients link what follows) or `www.`, anywhere. */
const SCHEME_OR_WWW = /\S*:\/\/\S*|\bwww\.\S*/i;

/**
 * The first URL, email address or host name in `text`; null when there is none. Mail clients link
 * more than linkify-it (`=https://…`, `evil.com|`), so the text is read again with everything but
 * letters, digits, dots, hyphens and `@` as spaces, after folding lookalikes (NFKC) and dropping
 * invisible characters.
 */
export function linkIn(text: string): string | null {
  const plain = text.normalize("NFKC").replace(INVISIBLE, "").replace(OTHER_DOTS, ".");
  const scheme = SCHEME_OR_WWW.exec(plain);
  if (scheme) return scheme[0];
  for (const candidate of [plain, plain.replace(/[^\p{L}\p{N}.@-]/gu, " ")]) {
    const match = links.match(candidate)?.[0];
    if (match) return match.raw;
  }
  return null;
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
  // Read with the placeholders as spaces, and as letters: a link may be assembled from both
  // (`{{appName}}-login.com`, `support{{appName}}@gmail.com`).
  const link = linkIn(rest) ?? linkIn(text.replace(PLACEHOLDER, "x"));
  return link ? { problem: "link", link } : null;
}

/**
 * Text as it may stand in a mail: when it holds a link, every dot, `@` and `://` in it broken
 * (`evil[.]com`, `a[at]b[.]org`), which no client links; otherwise as it is.
 */
export function defang(text: string): string {
  if (!linkIn(text)) return text;
  return text
    .replace(/[.\u3002\uff0e\uff61]/g, "[.]")
    .replace(/@/g, "[at]")
    .replace(/:\/\//g, "[:]//");
}

/**
 * The text with each placeholder replaced by its value (an absent one is empty), defanged as a
 * whole, so a link assembled from the words and a value (`{{appName}}-login.com`) breaks too.
 */
export function fillTemplate(text: string, values: Readonly<Record<string, string | undefined>>): string {
  const filled = text.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    return value ?? "";
  });
  return filled === text ? text : defang(filled);
}
