import { Form, Link, useNavigation, useSearchParams } from "react-router";
import { AuthCard, AuthLinks, linkClass } from "../components/auth/auth-card";
import { Button } from "../components/ui/button";
import { Field } from "../components/ui/field";
import type { Route } from "./+types/check-inbox";

const TEXTS = {
  register:
    "If the address can be used, we have sent a verification link to it. Follow the link to activate your account, then sign in. The link expires in 24 hours.",
  resend: "If an unverified account uses this address, a new verification link is on its way.",
  reset:
    "If an account uses this address, we have sent a link to choose a new password. The link expires in one hour.",
} as const;

export default function CheckInbox() {
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const which = (params.get("for") ?? "register") as keyof typeof TEXTS;
  const text = TEXTS[which] ?? TEXTS.register;
  return (
    <AuthCard title="Check your inbox">
      <p role="status" className="mt-3 text-sm text-slate-800 dark:text-slate-200">
        {text}
      </p>
      {which !== "reset" ? (
        <details className="mt-4 text-sm">
          <summary className="cursor-pointer">No email after a few minutes?</summary>
          <Form method="post" action="/resend-verification" className="mt-3 flex flex-col gap-3">
            <Field label="Email" name="email" type="email" autoComplete="email" required />
            <Button variant="secondary" pending={navigation.formAction === "/resend-verification"}>
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

export const meta: Route.MetaFunction = () => [{ title: "Check your inbox" }];
