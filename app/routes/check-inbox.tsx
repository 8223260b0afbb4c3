import type { TFunction } from "i18next";
import { useEffect } from "react";
import { Form, Link, redirect, useRevalidator, useSearchParams } from "react-router";
import { z } from "zod";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { FORM_OF, failedDelivery, inboxView, retryDelivery } from "../auth/public-mail.server";
import { AuthCard, AuthLinks } from "../components/auth/auth-card";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { linkVariants } from "../components/ui/link";
import { pageRefusal, refused } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { useTranslation } from "../i18n/use-translation";
import type { Route } from "./+types/check-inbox";

const POLL_MS = 2_000;

export async function loader({ request, context }: Route.LoaderArgs) {
  const view = await inboxView(new URL(request.url));
  if (!view) throw pageRefusal(getT(context), "auth.checkInboxInvalid", 400);
  return view;
}

const retrySchema = z.object({ intent: z.literal("retry"), d: z.string().max(100) });

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const parsed = retrySchema.safeParse(Object.fromEntries(await readForm(args.request)));
  const delivery = parsed.success ? await failedDelivery(parsed.data.d) : null;
  if (!delivery) return refused(getT(args.context), "auth.resendRefused", 400);
  const limited = await limitPublicForm(args, FORM_OF[delivery.purpose]);
  if (limited) return limited;
  throw redirect(await retryDelivery(args, delivery));
}

function statusText(t: TFunction, which: "register" | "resend" | "reset", state: string | undefined) {
  if (state === "sending") return t("auth:checkInbox.sending");
  if (state === "failed") return t("auth:checkInbox.failed");
  if (which === "register") return t("auth:checkInbox.register");
  if (which === "resend") return t("auth:checkInbox.resend");
  return t("auth:checkInbox.reset");
}

function TryAgain() {
  const { t } = useTranslation();
  const pending = useIsPending({ intent: "retry" });
  const [params] = useSearchParams();
  return (
    <Form method="post" className="mt-3">
      <input type="hidden" name="intent" value="retry" />
      <input type="hidden" name="d" value={params.get("d") ?? ""} />
      <Button pending={pending}>{t("auth:checkInbox.tryAgain")}</Button>
    </Form>
  );
}

export default function CheckInbox({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const resending = useIsPending({ formAction: "/resend-verification" });
  const revalidator = useRevalidator();
  const { which, delivery } = loaderData;
  const state = delivery?.state;
  // While the email is on its way, ask again every couple of seconds.
  useEffect(() => {
    if (state !== "sending" || revalidator.state !== "idle") return;
    const timer = setTimeout(() => void revalidator.revalidate(), POLL_MS);
    return () => clearTimeout(timer);
  }, [state, revalidator]);
  return (
    <AuthCard title={t("auth:checkInbox.title")}>
      <p role="status" aria-live="polite" className="mt-3 text-sm text-foreground">
        {statusText(t, which, state)}
      </p>
      {state === "failed" ? <TryAgain /> : null}
      <FormError message={actionData?.formError ?? undefined} />
      {which !== "reset" ? (
        <details className="mt-4 text-sm">
          <summary className="cursor-pointer">{t("auth:checkInbox.noEmail")}</summary>
          <Form method="post" action="/resend-verification" className="mt-3 flex flex-col gap-3">
            <Field label={t("auth:fields.email")} name="email" type="email" autoComplete="email" required />
            <Button variant="secondary" pending={resending}>
              {t("auth:checkInbox.sendAgain")}
            </Button>
          </Form>
        </details>
      ) : null}
      <AuthLinks>
        <Link to="/login" className={linkVariants()}>
          {t("auth:backToSignIn")}
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "checkInbox");
