import { ssoMessage } from "../auth/sso-messages";
import { say } from "../i18n/message";
import { useTranslation } from "../i18n/use-translation";
import { alertVariants } from "./ui/alert";
import { buttonVariants } from "./ui/button";
import { cn } from "./ui/cn";

// The login page's "Sign in with …" links (one per configured provider) and why the last
// single sign-on was refused (`?sso=<code>`, only fixed texts). Plain links: the provider's
// page is a full navigation away.
export function SsoSignIn({
  providers,
  refusal,
  redirectTo,
}: {
  providers: { slug: string; name: string }[];
  refusal: string | null;
  redirectTo: string | null;
}) {
  const { t } = useTranslation();
  const message = ssoMessage(refusal);
  const query = redirectTo ? `?${new URLSearchParams({ redirectTo })}` : "";
  return (
    <>
      {message ? (
        <p role="alert" className={cn(alertVariants({ variant: "destructive" }), "mt-3")}>
          {say(t, message)}
        </p>
      ) : null}
      {providers.length ? (
        <div className="mt-4 flex flex-col gap-2">
          {providers.map((p) => (
            <a
              key={p.slug}
              href={`/auth/oidc/${encodeURIComponent(p.slug)}${query}`}
              className={buttonVariants({ variant: "outline" })}
            >
              {t("auth:sso.signInWith", { provider: p.name })}
            </a>
          ))}
        </div>
      ) : null}
    </>
  );
}
