import { assignableRoles } from "../access/rules.server";
import { auditIntegrity } from "../audit/integrity.server";
import { reauthMethods } from "../auth/account.server";
import { inviteSchema } from "../auth/account-schemas";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import { invitationOutcomeText } from "../auth/invitation-text";
import { inviteUser } from "../auth/invitations.server";
import type { SessionUser } from "../auth/session.server";
import { env } from "../env.server";
import { getT } from "../i18n/i18n.server";
import { supportedLanguages } from "../i18n/resources.server";
import { recentMail } from "../mail/mail-log.server";
import { configLabel } from "../system-settings/config-labels";
import { describeSystemConfig } from "../system-settings/system-config.server";
import { replaySince, sendAgain } from "../webhooks/deliveries.server";
import {
  webhookCreateSchema,
  webhookEndpointSchema,
  webhookReplaySchema,
  webhookRetrySchema,
  webhookToggleSchema,
} from "../webhooks/endpoint-form";
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  rotateSecret,
  sendTest,
  updateEndpoint,
} from "../webhooks/endpoints.server";
import { ALL_EVENTS, mayReceive, WEBHOOK_EVENT_TYPES } from "../webhooks/event-types";
import { done } from "./answers.server";
import { systemSettingsSchema } from "./settings-form";
import { twoFactorIntent, twoFactorPolicy } from "./two-factor-settings.server";
import { applySettingsChanges } from "./update-settings.server";

export async function systemData(user: SessionUser) {
  const [config, mailLog, integrity, reauth, twoFactorRoles] = await Promise.all([
    describeSystemConfig(user),
    recentMail(25, user),
    auditIntegrity(),
    reauthMethods(user.id),
    twoFactorPolicy(user),
  ]);
  return {
    config,
    mailLog,
    outboxKeepsLinks: env().NODE_ENV !== "production",
    integrity,
    email: user.email,
    reauth,
    twoFactorPolicy: twoFactorRoles,
  };
}

export async function webhooksData(user: SessionUser) {
  return {
    endpoints: await listEndpoints(),
    // Only the events this person may have sent out.
    events: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES].filter((e) => mayReceive(user, e)),
  };
}

export async function inviteData(user: SessionUser) {
  const roles = await assignableRoles(user);
  return {
    roles: roles.map((r) => ({ id: r.id, name: r.name, label: r.label, translations: r.translations })),
    languages: supportedLanguages(),
  };
}

export const runSystemIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      system: {
        schema: systemSettingsSchema,
        run: async ({ actor, input }) => {
          const { changed } = await applySettingsChanges(actor, input, args);
          const names = changed.map((key) => configLabel(t, key));
          return done(
            "system",
            names.length
              ? t("settings:system.saved", { names: names.join(", ") })
              : t("settings:nothingToChange"),
          );
        },
      },
      "two-factor-roles": twoFactorIntent.roles(args, t),
    },
    { permission: "settings.manage" },
  );
};

/** The secret leaves the server at creation and rotation only. */
export const runWebhooksIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      "webhook-create": {
        schema: webhookCreateSchema,
        run: async ({ actor, input }) => {
          const { secret } = await createEndpoint(actor, input, args);
          return done("webhook-create", t("settings:webhooks.created", { url: input.url }), { secret });
        },
      },
      "webhook-toggle": {
        schema: webhookToggleSchema,
        run: async ({ actor, input }) => {
          const on = input.enabled === "1";
          await updateEndpoint(actor, input.endpoint, { enabled: on }, args);
          return done("webhook-toggle", on ? t("settings:webhooks.turnedOn") : t("settings:webhooks.paused"));
        },
      },
      "webhook-rotate": {
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          const { secret } = await rotateSecret(actor, input.endpoint, args);
          return done("webhook-rotate", t("settings:webhooks.rotated"), { secret });
        },
      },
      "webhook-test": {
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          await sendTest(actor, input.endpoint, args);
          return done("webhook-test", t("settings:webhooks.testQueued"));
        },
      },
      "webhook-delete": {
        schema: webhookEndpointSchema,
        run: async ({ actor, input }) => {
          await deleteEndpoint(actor, input.endpoint, args);
          return done("webhook-delete", t("settings:webhooks.deleted"));
        },
      },
      "webhook-retry": {
        schema: webhookRetrySchema,
        run: async ({ actor, input }) => {
          await sendAgain(actor, input.message, args);
          return done("webhook-retry", t("settings:webhooks.retryQueued"));
        },
      },
      "webhook-replay": {
        schema: webhookReplaySchema,
        run: async ({ actor, input }) => {
          const since = new Date(Date.now() - input.hours * 3_600_000).toISOString();
          const count = await replaySince(actor, input.endpoint, since, args);
          return done("webhook-replay", t("settings:webhooks.replayed", { count }));
        },
      },
    },
    { permission: "settings.manage" },
  );
};

export const runInviteIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      invite: {
        schema: inviteSchema,
        run: async ({ actor, input }) => {
          const outcome = await inviteUser(
            actor,
            { email: input.email, roleIds: input.roles, language: input.language },
            args,
          );
          const message = invitationOutcomeText(
            t,
            outcome,
            t("settings:invite.sent", { email: input.email }),
          );
          const unsent = outcome.mail.sent ? null : { id: outcome.id, email: outcome.email };
          return done("invite", message, { unsent });
        },
      },
    },
    { permission: "user.write" },
  );
};
