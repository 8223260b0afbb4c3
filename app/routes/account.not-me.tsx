import { Form, type ShouldRevalidateFunction } from "react-router";
import { notMeLinkProblem, reportNotMe } from "../auth/sign-in-alerts.server";
import { AuthCard } from "../components/auth/auth-card";
import { LinkProblem } from "../components/auth/link-problem";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { readForm } from "../http/read-form.server";
import { refusal } from "../http/responses";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/account.not-me";

// "This wasn't me", from a new sign-in email (app/auth/sign-in-alerts.server.ts). The link only
// shows a button: mail scanners open links, and a GET must not sign anyone out. No rate limit:
// the link carries 32 random bytes, and a wrong one costs one indexed read.

export async function loader({ request }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const problem = await notMeLinkProblem(token);
  if (problem) return refusal(400, "invalid_request", { ok: false as const, reason: problem, token: "" });
  return { ok: true as const, reason: null, token };
}

export async function action(args: Route.ActionArgs) {
  const token = (await readForm(args.request)).get("token");
  const outcome = await reportNotMe(args, typeof token === "string" ? token : "");
  if (!outcome.ok) return refusal(400, "invalid_request", { ok: false as const, reason: outcome.reason });
  return { ok: true as const, reason: null, email: outcome.email };
}

// After the action the link is spent: reloading the page's data would only say so (a 400).
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate }) =>
  formMethod === "POST" ? false : defaultShouldRevalidate;

export default function NotMe({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const pending = useIsPending();
  const reason = actionData && !actionData.ok ? actionData.reason : loaderData.ok ? null : loaderData.reason;
  if (reason) return <LinkProblem reason={reason} kind="reset" />;
  if (actionData?.ok)
    return (
      <AuthCard title={t("auth:notMe.doneTitle")}>
        <p role="status" className="mt-3 text-sm text-foreground">
          {t("auth:notMe.done", { email: actionData.email })}
        </p>
      </AuthCard>
    );
  return (
    <AuthCard title={t("auth:notMe.title")}>
      <p className="mt-3 text-sm text-foreground">{t("auth:notMe.explain")}</p>
      <Form method="post" className="mt-4">
        <input type="hidden" name="token" value={loaderData.ok ? loaderData.token : ""} />
        <Button variant="destructive" pending={pending}>
          {t("auth:notMe.submit")}
        </Button>
      </Form>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "notMe");
