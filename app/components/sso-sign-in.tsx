import { useTranslation } from "react-i18next";
import { ssoMessage } from "../auth/sso-messages";
import { say } from "../i18n/message";

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
        <p
          role="alert"
          className="mt-3 rounded bg-red-50 p-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {say(t, message)}
        </p>
      ) : null}
      {providers.length ? (
        <div className="mt-4 flex flex-col gap-2">
          {providers.map((p) => (
            <a
              key={p.slug}
              href={`/auth/oidc/${encodeURIComponent(p.slug)}${query}`}
              className="inline-flex items-center justify-center rounded-md border border-slate-400 px-4 py-2 text-sm font-semibold text-slate-900 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 dark:border-slate-600 dark:text-slate-100 dark:hover:bg-slate-800"
            >
              {t("auth:sso.signInWith", { provider: p.name })}
            </a>
          ))}
        </div>
      ) : null}
    </>
  );
}
