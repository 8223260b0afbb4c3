import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BAD_CREDENTIALS, DISABLED, UNVERIFIED } from "../auth/login.server";
import { SSO_MESSAGES, singleSignOnRequiredMessage } from "../auth/sso-messages";
import { MailSendError } from "../domain-errors";
import { retryMessage } from "../http/responses";
import { english, englishTranslator } from "./english.server";
import { tFor } from "./i18n.server";
import { type Message, say, sayIssue } from "./message";
import { resources } from "./resources.server";

// Every message the code raises for a person to read (zod messages, domain errors, form refusals,
// message constants) is a key of messages.json, in every language (app/i18n/message.ts). The source
// is scanned, not a list kept by hand: a key missing from the catalogue, or an English sentence
// raised where a key belongs, fails here. (Domain errors' keys are also checked by the compiler:
// MessageKey is derived from the English file.)

const root = join(import.meta.dirname, "..", "..");

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

type Source = { file: string; text: string };

// app/env.server.ts speaks to the operator at start-up, in English, before any page exists.
const sources: Source[] = [...walk(join(root, "app"))]
  .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.includes("/locales/"))
  .filter((f) => !f.endsWith("env.server.ts"))
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
const RAISED = [
  at(String.raw`new (?:RuleViolation|InvalidInput|NotFound|MailSendError)\(\s*`),
  // refused(t, "…"), pageRefusal(t, "…"), say(t, "…"): the key after the translator
  at(String.raw`\b(?:refused|pageRefusal|say)\(\s*[\w.()]+,\s*`),
  // message("…"), english("…"), const X: MessageKey = "…"
  at(String.raw`\b(?:message|english)\(\s*`),
  at(String.raw`:\s*MessageKey\s*=\s*`),
];
/** { key: "…" } or { key: "…", values }: a Message written out (other `key:`s are sort keys, permissions). */
const MESSAGE_OBJECT = at(String.raw`\{\s*key:\s*`, String.raw`\s*(?:\}|,\s*values\b)`);

/** A key as the catalogue nests it: "teams.nameTaken". */
const KEY = /^[a-z][A-Za-z0-9]*(\.[A-Za-z0-9]+)+$/;

type Found = { at: string; text: string; template: boolean };

function matchesOf(source: Source, pattern: RegExp) {
  const out: Found[] = [];
  for (const match of source.text.matchAll(pattern)) {
    const [, quote, text] = match;
    if (quote === undefined || text === undefined) continue;
    const line = source.text.slice(0, match.index).split("\n").length;
    out.push({ at: `${source.file}:${line}`, text, template: quote === "`" });
  }
  return out;
}

function collect(files: Source[]): Found[] {
  const found: Found[] = [];
  for (const source of files) {
    if (/from "zod"/.test(source.text)) {
      for (const pattern of ZOD_CHECKS) found.push(...matchesOf(source, pattern));
      if (/-schemas?\.ts$|(^|\/)email-address\.ts$/.test(source.file))
        found.push(...matchesOf(source, ZOD_OPTION));
    }
    for (const pattern of RAISED) found.push(...matchesOf(source, pattern));
    if (/i18n\/message"/.test(source.text)) found.push(...matchesOf(source, MESSAGE_OBJECT));
  }
  return found.filter((f) => f.text.trim() !== "");
}

const english_ = resources().en?.messages as Record<string, unknown>;
const german = resources().de?.messages as Record<string, unknown>;

function leaves(tree: Record<string, unknown>, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(tree)) {
    if (typeof value === "string") out[prefix + name] = value;
    else Object.assign(out, leaves(value as Record<string, unknown>, `${prefix}${name}.`));
  }
  return out;
}
const englishKeys = Object.keys(leaves(english_));

/** A key the catalogue has; `access.self.${verb}` is known when some key fits its holes. */
function isKnown(found: Found): boolean {
  if (!found.template || !found.text.includes("${")) return englishKeys.includes(found.text);
  const shape = new RegExp(
    `^${found.text
      .split(/\$\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[A-Za-z0-9]+")}$`,
  );
  return englishKeys.some((key) => shape.test(key));
}

/** What was raised as something other than a key: an English sentence, most likely. */
const notKeys = (found: Found[]) =>
  found.filter((f) => !KEY.test(f.text.replace(/\$\{[^}]*\}/g, "x"))).map((f) => `${f.at}: ${f.text}`);

describe("the messages catalogue", () => {
  const found = collect(sources);

  it("finds the messages the code raises (the scan itself works)", () => {
    const texts = new Set(found.map((f) => f.text));
    for (const known of [
      "validation.yourName", // zod .min in a schema
      "validation.email", // z.email("…")
      "auth.passwordsDiffer", // refine's { message }
      "auth.passwordCommon", // .refine(fn, "…")
      "auth.inviteAddressTaken", // new InvalidInput("…")
      "auth.badCredentials", // message("…")
      "passkeys.signInFailed", // const X: MessageKey = "…"
      "auth.resendRefused", // refused(t, "…")
      "auth.checkInboxInvalid", // pageRefusal(t, "…")
      "tasks.failure.simulated", // english("…")
      "rateLimit.seconds", // { key: "…" }
    ])
      expect(texts, known).toContain(known);
    expect(found.filter((f) => f.template).length).toBeGreaterThan(1);
    expect(found.length).toBeGreaterThan(150);
  });

  it("raises keys, never English sentences", () => {
    expect(notKeys(found)).toEqual([]);
  });

  it("catches a sentence raised where a key is expected", () => {
    const planted = collect([
      {
        file: "planted.ts",
        text: [
          'import { z } from "zod";',
          'const name = z.string().min(1, "Enter a name.");',
          'throw new RuleViolation("You cannot do that.");',
          'return refused(t, "Not allowed.", 403);',
        ].join("\n"),
      },
    ]);
    expect(notKeys(planted)).toEqual([
      "planted.ts:2: Enter a name.",
      "planted.ts:3: You cannot do that.",
      "planted.ts:4: Not allowed.",
    ]);
  });

  it("has every raised key in English and German", () => {
    const missing = found.filter((f) => !isKnown(f)).map((f) => `${f.at}: ${f.text}`);
    expect([...new Set(missing)]).toEqual([]);
    expect(Object.keys(leaves(german)).sort()).toEqual([...englishKeys].sort());
  });

  it("says German in German: no message is left in English", () => {
    const de = leaves(german);
    const same = Object.entries(leaves(english_)).filter(
      ([key, text]) => de[key] === text && !text.startsWith("$t("),
    );
    expect(same).toEqual([]);
  });

  it("covers the messages built by functions and kept in tables", () => {
    const built: Message[] = [
      ...Object.values(SSO_MESSAGES).map((key) => ({ key })),
      BAD_CREDENTIALS,
      UNVERIFIED,
      DISABLED,
      singleSignOnRequiredMessage("Acme ID"),
      retryMessage(1),
      retryMessage(30),
      retryMessage(900),
      new MailSendError("mail.sendFailed.invitation", "Inactive recipient").said,
    ];
    const de = tFor("de");
    for (const message of built) {
      expect(englishKeys, message.key).toContain(message.key);
      expect(say(de, message), message.key).not.toBe(english(message));
    }
  });

  it("puts the data of a message into its words, in every language", () => {
    expect(say(tFor("de"), retryMessage(30))).toBe(
      "Zu viele Versuche. Versuchen Sie es in 30 Sekunden erneut.",
    );
    expect(say(tFor("de"), singleSignOnRequiredMessage("Acme ID"))).toContain("„Mit Acme ID anmelden“");
    expect(english(retryMessage(900))).toBe("Too many attempts. Try again in 15 minutes.");
    expect(new MailSendError("mail.sendFailed.invitation", "Inactive recipient").message).toBe(
      "Failed to send invitation email: Inactive recipient",
    );
  });

  it("says a zod issue with the limits the schema checks", () => {
    const issues = z
      .object({ a: z.string().min(10, "validation.minLength"), b: z.string().max(3, "validation.maxLength") })
      .safeParse({ a: "short", b: "too long" }).error?.issues;
    expect(issues?.map((i) => sayIssue(englishTranslator(), i))).toEqual([
      "Use at least 10 characters.",
      "Use at most 3 characters.",
    ]);
    expect(issues?.map((i) => sayIssue(tFor("de"), i))).toEqual([
      "Verwenden Sie mindestens 10 Zeichen.",
      "Verwenden Sie höchstens 3 Zeichen.",
    ]);
  });

  it("a message that is not ours (zod's own, a provider's) is shown as written, never interpolated", () => {
    expect(sayIssue(tFor("de"), { message: "Invalid input: expected string, received array" })).toBe(
      "Invalid input: expected string, received array",
    );
    const raw = "Provider says {{status}} and $t(common:error.title).";
    expect(english(new MailSendError("mail.sendFailed.invitation", raw).said)).toBe(
      `Failed to send invitation email: ${raw}`,
    );
    expect(say(tFor("de"), new MailSendError("mail.sendFailed.invitation", raw).said)).toContain(raw);
  });
});
