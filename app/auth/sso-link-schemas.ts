import type { TFunction } from "i18next";
import { z } from "zod";
import { type MessageKey, say, sayIssue } from "../i18n/message";
import { loginSchema } from "./account-schemas";
import { twoFactorCodeSchema } from "./two-factor-schemas";

// The proof page of a pending single sign-on link (/login/sso-link, app/auth/sso-link.server.ts):
// the account's password, or a two-factor code. Shared by the browser (conform) and the server.

export const linkPasswordSchema = z.object({ password: loginSchema.shape.password });
export const linkCodeSchema = twoFactorCodeSchema;

const linkProofSchema = z.discriminatedUnion("intent", [
  linkPasswordSchema.extend({ intent: z.literal("password") }),
  linkCodeSchema.extend({ intent: z.literal("code") }),
]);

export type LinkProof = { kind: "password"; password: string } | { kind: "code"; code: string };
type LinkIntent = z.infer<typeof linkProofSchema>["intent"];

const MISSING: Record<LinkIntent, MessageKey> = {
  password: "auth.enterPassword",
  code: "twoFactor.enterCode",
};

/** The server's one parser of the page's two forms: which form was sent, and its proof (a refusal said with `t`). */
export function parseLinkProof(
  values: Record<string, unknown>,
  t: TFunction,
):
  | { ok: true; intent: LinkIntent; proof: LinkProof }
  | { ok: false; intent: LinkIntent | null; formError: string } {
  const parsed = linkProofSchema.safeParse(values);
  if (parsed.success) {
    const d = parsed.data;
    const proof: LinkProof =
      d.intent === "code" ? { kind: "code", code: d.code } : { kind: "password", password: d.password };
    return { ok: true, intent: d.intent, proof };
  }
  const intent = linkProofSchema.options.map((o) => o.shape.intent.value).find((v) => v === values.intent);
  if (!intent) return { ok: false, intent: null, formError: say(t, "sso.chooseProof") };
  const issue = parsed.error.issues.find((i) => i.path[0] !== "intent");
  return { ok: false, intent, formError: issue ? sayIssue(t, issue) : say(t, MISSING[intent]) };
}
