import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { postgresPoolOf } from "../../db/connection";
import type { EmailTemplateTable, EmailTemplateVersionTable } from "../../db/schema";
import { isUniqueViolation } from "../../db/unique-violation";
import {
  defaultTemplate,
  EMAIL_TYPES,
  type EmailType,
  PLACEHOLDERS,
  TEMPLATE_FIELDS,
  TEMPLATE_LIMITS,
  type TemplateField,
  type TemplateTexts,
  templateNeedsSuperAdmin,
  templateTexts,
} from "../../emails/email-texts";
import { textProblem } from "../../emails/template-text";
import { type AuditOrigin, audit } from "../audit/audit.server";
import { db, type Executor, now } from "../db.server";
import { InvalidInput, NotFound, RuleViolation } from "../domain-errors";
import { supportedLanguages } from "../i18n/resources.server";

// An organisation's own words for each email type and language (docs/rules.md, "Email templates";
// decision 052). A field left empty keeps the product's words, so a new default reaches every
// field nobody customised; every change is a numbered version, audited with before and after.

export type TemplateEditor = { id: string; email: string; isSuperAdmin: boolean };

/** null for a field: the default. */
export type CustomTexts = Record<TemplateField, string | null>;

export type TemplateView = TemplateTexts & {
  type: EmailType;
  language: string;
  customized: boolean;
  updatedAt: string | null;
};

export type TemplateVersion = CustomTexts & {
  version: number;
  change: EmailTemplateVersionTable["change"];
  createdAt: string;
  createdBy: string | null;
};

/** A change: a field's new words, or null / "" for the default; absent fields stay as they are. */
export type TemplateChange = Partial<Record<TemplateField, string | null>>;

function knownType(type: string): EmailType {
  if (!(EMAIL_TYPES as readonly string[]).includes(type)) throw new NotFound("emailTemplates.unknownType");
  return type as EmailType;
}

function knownLanguage(language: string): string {
  if (!supportedLanguages().includes(language)) throw new NotFound("emailTemplates.unknownLanguage");
  return language;
}

/**
 * The type and language of a path, or 404; then, for a change, 403 when the editor may not word
 * this type. Reading (the list, a preview) is everyone's with settings.manage.
 */
export function templateAddress(
  editor: TemplateEditor,
  type: string,
  language: string,
  purpose: "change" | "read" = "change",
) {
  const address = { type: knownType(type), language: knownLanguage(language) };
  if (purpose === "change" && !mayEdit(editor, address.type))
    throw new RuleViolation("emailTemplates.superAdminOnly");
  return address;
}

export function mayEdit(editor: { isSuperAdmin: boolean }, type: EmailType): boolean {
  return editor.isSuperAdmin || !templateNeedsSuperAdmin(type);
}

const customOf = (row: Pick<EmailTemplateTable, TemplateField>): CustomTexts =>
  Object.fromEntries(TEMPLATE_FIELDS.map((f) => [f, row[f]])) as CustomTexts;

const NONE: CustomTexts = { subject: null, heading: null, message: null, button: null, footer: null };

/** The saved words of a type in a language and their version; null when it reads as the product's. */
export async function savedTemplate(
  type: EmailType,
  language: string,
  executor: Executor = db(),
): Promise<{ custom: CustomTexts; version: number } | null> {
  const row = await executor
    .selectFrom("email_template")
    .selectAll()
    .where("type", "=", type)
    .where("language", "=", language)
    .executeTakeFirst();
  return row ? { custom: customOf(row), version: row.version } : null;
}

/** Every type in every language, as GET /api/email-templates lists them: the words in effect. */
export async function listTemplates(): Promise<TemplateView[]> {
  const rows = await db().selectFrom("email_template").selectAll().execute();
  const saved = new Map(rows.map((r) => [`${r.type}/${r.language}`, r]));
  return EMAIL_TYPES.flatMap((type) =>
    supportedLanguages().map((language) => {
      const row = saved.get(`${type}/${language}`);
      return {
        type,
        language,
        ...templateTexts(type, language, row ? customOf(row) : null),
        customized: Boolean(row),
        updatedAt: row?.updated_at ?? null,
      };
    }),
  );
}

/** "type/language" of every customised template: what the page's picker marks. */
export async function customizedTemplates(): Promise<Set<string>> {
  const rows = await db().selectFrom("email_template").select(["type", "language"]).execute();
  return new Set(rows.map((r) => `${r.type}/${r.language}`));
}

/** Every field of a change checked (400 on the first wrong one) before anything is saved. */
export function checkChange(type: EmailType, change: TemplateChange): Partial<CustomTexts> {
  const out: Partial<CustomTexts> = {};
  for (const field of TEMPLATE_FIELDS) {
    if (!Object.hasOwn(change, field)) continue;
    const raw = change[field];
    const text = typeof raw === "string" ? raw.replace(/\r\n?/g, "\n").trim() : null;
    if (!text) {
      out[field] = null;
      continue;
    }
    const problem = textProblem(text, { ...TEMPLATE_LIMITS[field], allowed: PLACEHOLDERS[type] });
    if (problem?.problem === "hidden") throw new InvalidInput("validation.plainText", field);
    if (problem?.problem === "tooLong")
      throw new InvalidInput("validation.maxLength", field, { maximum: problem.maximum });
    if (problem?.problem === "link")
      throw new InvalidInput("emailTemplates.link", field, { link: problem.link });
    if (problem?.problem === "braces") throw new InvalidInput("emailTemplates.braces", field);
    if (problem?.problem === "placeholder")
      throw new InvalidInput("emailTemplates.placeholder", field, { placeholder: problem.placeholder });
    out[field] = text;
  }
  return out;
}

async function nextVersion(trx: Executor, type: EmailType, language: string): Promise<number> {
  const row = await trx
    .selectFrom("email_template_version")
    .select((eb) => eb.fn.max("version").as("version"))
    .where("type", "=", type)
    .where("language", "=", language)
    .executeTakeFirst();
  return Number(row?.version ?? 0) + 1;
}

const ATTEMPTS = 3;

/**
 * One change as a new version, `after` computed from the words as they are inside the transaction,
 * where writers of the template take turns: no field lost, no 500. Should two still meet (a lock
 * not taken), the unique version index refuses one, which runs again over the other's words.
 */
async function write(
  editor: TemplateEditor,
  address: { type: EmailType; language: string },
  afterOf: (before: CustomTexts) => CustomTexts,
  change: TemplateVersion["change"],
  origin: AuditOrigin,
): Promise<TemplateView> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeOnce(editor, address, afterOf, change, origin);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

function writeOnce(
  editor: TemplateEditor,
  address: { type: EmailType; language: string },
  afterOf: (before: CustomTexts) => CustomTexts,
  change: TemplateVersion["change"],
  origin: AuditOrigin,
): Promise<TemplateView> {
  const { type, language } = address;
  const at = now();
  return db()
    .transaction()
    .execute(async (trx) => {
      // PostgreSQL: writers of one template take turns (SQLite has one writer anyway).
      if (postgresPoolOf(db()))
        await sql`select pg_advisory_xact_lock(hashtext(${`email-template:${type}/${language}`}))`.execute(
          trx,
        );
      const before = (await savedTemplate(type, language, trx))?.custom ?? NONE;
      const after = afterOf(before);
      const version = await nextVersion(trx, type, language);
      await trx
        .insertInto("email_template_version")
        .values({
          id: randomUUID(),
          type,
          language,
          version,
          change,
          ...after,
          created_at: at,
          created_by_email: editor.email,
        })
        .execute();
      const customized = TEMPLATE_FIELDS.some((f) => after[f] !== null);
      if (customized) {
        const row = { ...after, version, updated_at: at, updated_by: editor.id };
        await trx
          .insertInto("email_template")
          .values({ type, language, ...row })
          .onConflict((oc) => oc.columns(["type", "language"]).doUpdateSet(row))
          .execute();
      } else {
        await trx
          .deleteFrom("email_template")
          .where("type", "=", type)
          .where("language", "=", language)
          .execute();
      }
      await audit(
        origin,
        {
          action: customized ? "email_template.update" : "email_template.reset",
          actor: editor,
          target: { type: "email_template", id: `${type}/${language}` },
          details: { type, language, version, change, before, after },
        },
        trx,
      );
      return {
        type,
        language,
        ...templateTexts(type, language, after),
        customized,
        updatedAt: customized ? at : null,
      };
    });
}

/** PUT: the given fields changed, the others kept; 400 (nothing saved) on any wrong field. */
export async function saveTemplate(
  editor: TemplateEditor,
  type: string,
  language: string,
  change: TemplateChange,
  origin: AuditOrigin,
): Promise<TemplateView> {
  const address = templateAddress(editor, type, language);
  const checked = checkChange(address.type, change);
  return write(editor, address, (before) => ({ ...before, ...checked }), "update", origin);
}

/** DELETE: the product's words again (a version of its own, so it can be undone by a restore). */
export async function resetTemplate(
  editor: TemplateEditor,
  type: string,
  language: string,
  origin: AuditOrigin,
) {
  const address = templateAddress(editor, type, language);
  if (!(await savedTemplate(address.type, address.language))) {
    return {
      ...address,
      ...defaultTemplate(address.type, address.language),
      customized: false,
      updatedAt: null,
    };
  }
  return write(editor, address, () => NONE, "reset", origin);
}

/** A version's words again, checked against today's rules (a placeholder may have gone since). */
export async function restoreVersion(
  editor: TemplateEditor,
  type: string,
  language: string,
  version: number,
  origin: AuditOrigin,
): Promise<TemplateView> {
  const address = templateAddress(editor, type, language);
  const row = await db()
    .selectFrom("email_template_version")
    .selectAll()
    .where("type", "=", address.type)
    .where("language", "=", address.language)
    .where("version", "=", version)
    .executeTakeFirst();
  if (!row) throw new NotFound("emailTemplates.noVersion");
  const words = { ...NONE, ...checkChange(address.type, customOf(row)) };
  return write(editor, address, () => words, "restore", origin);
}

const HISTORY_LIMIT = 50;

/** The newest versions first. */
export async function templateHistory(type: EmailType, language: string): Promise<TemplateVersion[]> {
  const rows = await db()
    .selectFrom("email_template_version")
    .selectAll()
    .where("type", "=", type)
    .where("language", "=", language)
    .orderBy("version", "desc")
    .limit(HISTORY_LIMIT)
    .execute();
  return rows.map((r) => ({
    ...customOf(r),
    version: r.version,
    change: r.change,
    createdAt: r.created_at,
    createdBy: r.created_by_email,
  }));
}
