import { useEffect } from "react";
import { data, Form, Link, redirect, useRevalidator, useSearchParams } from "react-router";
import { z } from "zod";
import { limitPublicForm } from "../auth/public-form-limit.server";
import { FORM_OF, failedDelivery, inboxView, retryDelivery } from "../auth/public-mail.server";
import { AuthCard, AuthLinks, linkClass } from "../components/auth/auth-card";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { refused } from "../http/form.server";
import { readForm } from "../http/read-form.server";
import { passRetryAfter } from "../http/responses";
import type { Route } from "./+types/check-inbox";

const TEXTS = {
  register:
    "If the address can be used, we have sent a verification link to it. Follow the link to activate your account, then sign in. The link expires in 24 hours.",
  resend: "If an unverified account uses this address, a new verification link is on its way.",
  reset:
    "If an account uses this address, we have sent a link to choose a new password. The link expires in one hour.",
} as const;

const POLL_MS = 2_000;

export async function loader({ request }: Route.LoaderArgs) {
  const view = await inboxView(new URL(request.url));
  if (!view)
    throw data({ message: "This page address is not valid. Use the link from the form." }, { status: 400 });
  return view;
}

const retrySchema = z.object({ intent: z.literal("retry"), d: z.string().max(100) });

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  const parsed = retrySchema.safeParse(Object.fromEntries(await readForm(args.request)));
  const delivery = parsed.success ? await failedDelivery(parsed.data.d) : null;
  if (!delivery) return refused("This email cannot be sent again from here. Use the form below.", 400);
  const limited = await limitPublicForm(args, FORM_OF[delivery.purpose]);
  if (limited) return limited;
  throw redirect(await retryDelivery(args, delivery));
}

function statusText(which: keyof typeof TEXTS, state: string | undefined) {
  if (state === "sending") return "Sending the email…";
  if (state === "failed")
    return "The email could not be sent. Nothing is wrong with your request; please try again.";
  return TEXTS[which];
}

function TryAgain() {
  const pending = useIsPending({ intent: "retry" });
  const [params] = useSearchParams();
  return (
    <Form method="post" className="mt-3">
      <input type="hidden" name="intent" value="retry" />
      <input type="hidden" name="d" value={params.get("d") ?? ""} />
      <Button pending={pending}>Try again</Button>
    </Form>
  );
}

export default function CheckInbox({ loaderData, actionData }: Route.ComponentProps) {
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
    <AuthCard title="Check your inbox">
      <p role="status" aria-live="polite" className="mt-3 text-sm text-slate-800 dark:text-slate-200">
        {statusText(which, state)}
      </p>
      {state === "failed" ? <TryAgain /> : null}
      <FormError message={actionData?.formError ?? undefined} />
      {which !== "reset" ? (
        <details className="mt-4 text-sm">
          <summary className="cursor-pointer">No email after a few minutes?</summary>
          <Form method="post" action="/resend-verification" className="mt-3 flex flex-col gap-3">
            <Field label="Email" name="email" type="email" autoComplete="email" required />
            <Button variant="secondary" pending={resending}>
              Send the link again
            </Button>
          </Form>
        </details>
      ) : null}
      <AuthLinks>
        <Link to="/login" className={linkClass}>
          Back to sign in
        </Link>
      </AuthLinks>
    </AuthCard>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "checkInbox");
