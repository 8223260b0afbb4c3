import { z } from "zod";
import {
  defaultTemplate,
  EMAIL_TYPES,
  type EmailType,
  PLACEHOLDERS,
  TEMPLATE_FIELDS,
  TEMPLATE_LIMITS,
} from "../../emails/email-texts";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import { getT } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import {
  customizedTemplates,
  mayEdit,
  resetTemplate,
  restoreVersion,
  savedTemplate,
  saveTemplate,
  templateHistory,
} from "../mail/email-templates.server";
import { previewTemplate, sendTemplateTest } from "../mail/template-preview.server";
import { hit, RateLimitedError } from "../security/rate-limit.server";
import { done } from "./answers.server";

// Settings → Email templates: one type in one language at a time (?type=&language=), its words
// beside the defaults, a live preview, a test to oneself, the history with restore, and reset.

const pick = z.object({
  type: z.enum(EMAIL_TYPES).catch(EMAIL_TYPES[0]),
  language: z.string().catch(""),
});

export async function emailTemplatesData(user: SessionUser, url: URL, uiLanguage: string) {
  const asked = pick.parse(Object.fromEntries(url.searchParams));
  const languages = supportedLanguages();
  const language = languages.includes(asked.language) ? asked.language : uiLanguage;
  const type = asked.type;
  const [customized, saved, history] = await Promise.all([
    customizedTemplates(),
    savedTemplate(type, language),
    templateHistory(type, language),
  ]);
  return {
    type,
    language,
    languages,
    types: EMAIL_TYPES.map((t) => ({
      type: t,
      editable: mayEdit(user, t),
      customized: languages.filter((l) => customized.has(`${t}/${l}`)),
    })),
    editable: mayEdit(user, type),
    defaults: defaultTemplate(type, language),
    saved: saved?.custom ?? null,
    version: saved?.version ?? null,
    placeholders: PLACEHOLDERS[type],
    limits: TEMPLATE_LIMITS,
    history,
    email: user.email,
  };
}

const address = z.object({ type: z.string().max(40), language: z.string().max(10) });
const words = z.string().max(4000).optional();
const fieldsSchema = address.extend(
  Object.fromEntries(TEMPLATE_FIELDS.map((f) => [f, words])) as Record<
    (typeof TEMPLATE_FIELDS)[number],
    typeof words
  >,
);
const versionSchema = address.extend({ version: z.coerce.number().int().positive() });

/** Empty fields mean the default, so every field the form sends is a change. */
const changeOf = (input: z.output<typeof fieldsSchema>) =>
  Object.fromEntries(TEMPLATE_FIELDS.map((f) => [f, input[f] ?? null]));

export const runEmailTemplatesIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  const name = (type: string, language: string) =>
    t("settings:emailTemplates.named", {
      type: t(`settings:emailTemplates.types.${type as EmailType}`, { defaultValue: type }),
      language: language.toUpperCase(),
    });
  return handleIntents(
    args,
    {
      save: {
        schema: fieldsSchema,
        run: async ({ actor, input }) => {
          await saveTemplate(actor, input.type, input.language, changeOf(input), args);
          return done("save", t("settings:emailTemplates.saved", { name: name(input.type, input.language) }));
        },
      },
      preview: {
        schema: fieldsSchema,
        run: async ({ actor, input }) => {
          const preview = await previewTemplate(actor, input.type, input.language, changeOf(input));
          return done("preview", "", { preview });
        },
      },
      reset: {
        schema: address,
        run: async ({ actor, input }) => {
          await resetTemplate(actor, input.type, input.language, args);
          return done(
            "reset",
            t("settings:emailTemplates.resetDone", { name: name(input.type, input.language) }),
          );
        },
      },
      restore: {
        schema: versionSchema,
        run: async ({ actor, input }) => {
          await restoreVersion(actor, input.type, input.language, input.version, args);
          return done("restore", t("settings:emailTemplates.restored", { version: input.version }));
        },
      },
      test: {
        schema: address,
        run: async ({ actor, input }) => {
          const allowed = await hit("testMailPerUser", actor.id);
          if (!allowed.ok) throw new RateLimitedError(allowed.retryAfterSeconds);
          const delivery = await sendTemplateTest(actor, input.type, input.language);
          return done(
            "test",
            delivery.via === "outbox"
              ? t("settings:emailTemplates.testOutbox", { email: actor.email })
              : t("settings:emailTemplates.testSent", { email: actor.email }),
          );
        },
      },
    },
    { permission: "settings.manage" },
  );
};
