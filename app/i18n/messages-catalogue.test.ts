import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { BAD_CREDENTIALS, DISABLED, UNVERIFIED } from "../auth/login.server";
import { SSO_MESSAGES, singleSignOnRequiredMessage } from "../auth/sso-messages";
import { MailSendError } from "../domain-errors";
import { retryMessage } from "../http/responses";
import { tFor } from "./i18n.server";
import { matchPattern, translateMessage } from "./message";
import { resources } from "./resources.server";

// Every English sentence the code raises for a person to read (zod messages, domain errors,
// form refusals, message constants) is a key of messages.json in every language, so a page can
// show it translated (app/i18n/message.ts). The source is scanned, not a list kept by hand: a new
// message without its translation fails here. A message with data in it (a template literal) is
// matched against the keys with placeholders ("A team named \"{{name}}\" already exists.").

const root = join(import.meta.dirname, "..", "..");

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

const sources = [...walk(join(root, "app"))]
  .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.includes("/locales/"))
  .map((file) => ({ file: relative(root, file), text: readFileSync(file, "utf8") }));

/** A string literal: "…", '…' or `…` (group 1 the quote, group 2 the content). */
const STRING = String.raw`(["'\x60])((?:\\.|(?!\1)[^\\])*)\1`;

/** Where a message is raised: each pattern captures the message's quote and text as groups 1 and 2. */
const at = (before: string, after = "") => new RegExp(before + STRING + after, "g");
const ZOD_CHECKS = [
  // .min(10, "…"), .max(254, "…"), .refine(fn, "…"), .regex(/x/, "…"): the message after the first argument
  at(
    String.raw`\.(?:min|max|length|gte|lte|gt|lt|regex|startsWith|endsWith|includes|refine)\((?:[^()"'\x60]|\((?:[^()]|\([^()]*\))*\)|\[[^\]]*\])*?,\s*`,
    String.raw`\s*[,)]`,
  ),
  // z.email("…"), .uuid("…"), .nonempty("…"): the message as the only argument
  at(String.raw`\.(?:email|uuid|url|nonempty|int|positive|nonnegative)\(\s*`, String.raw`\s*\)`),
];
/** { message: "…" } / { error: "…" }: refine's options, z.enum's error; in a schema file only (a route's toast has a `message` too). */
const ZOD_OPTION = at(String.raw`\b(?:message|error):\s*`);
const DOMAIN_ERROR = at(String.raw`new (?:RuleViolation|InvalidInput|NotFound)\(\s*`);
const FORM_REFUSALS = [
  at(String.raw`\brefused\(\s*`),
  at(String.raw`\bformError:\s*`),
  // thrown to the error boundary, which translates data.message: throw refusal(400, CODE, { message: "…" })
  at(String.raw`\brefusal\([^{]*\{\s*message:\s*`),
];
/** `const FAILED = "That passkey could not be used to sign in.";`: sentences kept as constants. */
const MESSAGE_CONSTANT = at(String.raw`\bconst [A-Z][A-Z0-9_]* = `, ";");

const isSentence = (text: string) => /^[A-Z"].* .*[.?!]$/s.test(text);

type Found = { at: string; text: string; template: boolean };

function matchesOf(source: { file: string; text: string }, pattern: RegExp, keep = (_: string) => true) {
  const out: Found[] = [];
  for (const match of source.text.matchAll(pattern)) {
    const [, quote, text] = match;
    if (quote === undefined || text === undefined || !keep(text)) continue;
    const line = source.text.slice(0, match.index).split("\n").length;
    out.push({ at: `${source.file}:${line}`, text: unquote(text), template: quote === "`" });
  }
  return out;
}

function unquote(text: string) {
  return text.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

function collect(): Found[] {
  const found: Found[] = [];
  for (const source of sources) {
    if (/from "zod"/.test(source.text)) {
      // In a schema every check's message is one; elsewhere (a route's small schema) only sentences.
      const schema = /-schemas?\.ts$|(^|\/)email-address\.ts$/.test(source.file);
      for (const pattern of ZOD_CHECKS)
        found.push(...matchesOf(source, pattern, schema ? () => true : isSentence));
      if (schema) found.push(...matchesOf(source, ZOD_OPTION));
    }
    found.push(...matchesOf(source, DOMAIN_ERROR));
    for (const pattern of FORM_REFUSALS) found.push(...matchesOf(source, pattern));
    found.push(...matchesOf(source, MESSAGE_CONSTANT, isSentence));
  }
  // zod's `error:`/`message:` also match ordinary object keys in schema files; real ones are sentences.
  return found.filter((f) => f.text.trim() !== "" && isSentence(f.text));
}

const english = resources().en?.messages as Record<string, string>;
const german = resources().de?.messages as Record<string, string>;

/** A template literal's text with its `${…}` holes, compared with a key's `{{…}}` placeholders. */
const shape = (text: string, hole: RegExp) => text.replace(hole, "\u0000");
const patternKeys = Object.keys(english)
  .filter((k) => k.includes("{{"))
  .map((k) => shape(k, /\{\{\s*\w+\s*\}\}/g));

function isKnown(found: Found): boolean {
  if (!found.template || !found.text.includes("${")) return Object.hasOwn(english, found.text);
  return patternKeys.includes(shape(found.text, /\$\{(?:[^{}]|\{[^{}]*\})*\}/g));
}

describe("the messages catalogue", () => {
  const found = collect();

  it("finds the messages the code raises (the scan itself works)", () => {
    const texts = new Set(found.map((f) => f.text));
    for (const known of [
      "Enter your name.", // zod .min in a schema
      "Enter a valid email address.", // z.email("…")
      "The passwords do not match.", // refine's { message }
      "This password is too common. Choose another.", // .refine(fn, "…")
      "This address already has an account.", // new InvalidInput("…")
      "Invalid email or password.", // a message constant
      "That passkey could not be used to sign in.",
      "This email cannot be sent again from here. Use the form below.", // refused("…")
      "This page address is not valid. Use the link from the form.", // throw data({ message })
    ])
      expect(texts, known).toContain(known);
    expect(found.filter((f) => f.template).length).toBeGreaterThan(5);
    expect(found.length).toBeGreaterThan(80);
  });

  it("has every message in English and German", () => {
    const missing = found.filter((f) => !isKnown(f)).map((f) => `${f.at}: ${f.text}`);
    expect([...new Set(missing)]).toEqual([]);
    expect(Object.keys(german).sort()).toEqual(Object.keys(english).sort());
  });

  it("English keys say themselves; German says something else", () => {
    for (const [key, text] of Object.entries(english)) expect(text, key).toBe(key);
    const same = Object.entries(german).filter(([key, text]) => key === text && !/^[^a-z]*$/.test(key));
    expect(same).toEqual([]);
  });

  it("covers the messages built by functions and kept in tables", () => {
    const built = [
      ...Object.values(SSO_MESSAGES),
      BAD_CREDENTIALS,
      UNVERIFIED,
      DISABLED,
      singleSignOnRequiredMessage("Acme ID"),
      retryMessage(1),
      retryMessage(30),
      retryMessage(900),
      new MailSendError("invitation email", "Inactive recipient", "invite").message,
    ];
    const de = tFor("de");
    for (const message of built) {
      expect(Object.hasOwn(english, message) || matchPattern(message) !== null, message).toBe(true);
      expect(translateMessage(de, message), message).not.toBe(message);
    }
  });

  it("puts the data of a message into its translation", () => {
    expect(translateMessage(tFor("de"), retryMessage(30))).toBe(
      "Zu viele Versuche. Versuchen Sie es in 30 Sekunden erneut.",
    );
    expect(translateMessage(tFor("de"), singleSignOnRequiredMessage("Acme ID"))).toContain(
      "„Mit Acme ID anmelden“",
    );
    expect(translateMessage(tFor("en"), retryMessage(900))).toBe(retryMessage(900));
  });

  it("a message that is not ours (zod's own, a provider's) is shown as written, never interpolated", () => {
    expect(translateMessage(tFor("de"), "Invalid input: expected string, received array")).toBe(
      "Invalid input: expected string, received array",
    );
    const raw = "Provider says {{status}} and $t(common:error.title).";
    expect(translateMessage(tFor("de"), raw)).toBe(raw);
  });
});
