import { redirect } from "react-router";
import { verifyEmailToken } from "../auth/email-verification.server";
import { bindingOf } from "../auth/registration-binding.server";
import { LinkProblem } from "../components/auth/link-problem";
import { pageTitle } from "../components/page-title";
import { refusal } from "../http/responses";
import { toastCookie } from "../http/toast.server";
import { getT } from "../i18n/i18n.server";
import type { Route } from "./+types/api.auth.verify-email";

// A page, not JSON, despite the /api path: people arrive here from the link in their email.
export async function loader(args: Route.LoaderArgs) {
  const token = new URL(args.request.url).searchParams.get("token");
  const outcome = await verifyEmailToken(args, token, await bindingOf(args.request));
  if (!outcome.ok) return refusal(400, "invalid_request", { reason: outcome.reason });
  if (outcome.kind === "choose-password")
    throw redirect(`/reset-password?${new URLSearchParams({ token: outcome.resetToken, contested: "1" })}`);
  // /login says "verified" itself; only the change of address needs its own word.
  if (outcome.kind === "verified") throw redirect("/login?verified=1");
  throw redirect("/login?verified=1", {
    headers: {
      "Set-Cookie": await toastCookie({
        kind: "success",
        message: getT(args.context)("auth:verify.newAddressConfirmed"),
      }),
    },
  });
}

export default function VerifyEmailProblem({ loaderData }: Route.ComponentProps) {
  return <LinkProblem reason={loaderData.reason} kind="verify" />;
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "verificationLinkUnusable");
