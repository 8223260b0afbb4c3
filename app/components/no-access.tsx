import { ShieldAlert } from "lucide-react";
import { Form, Link } from "react-router";
import { anyPermissionLabel } from "../access/permission-labels";
import { useTranslation } from "../i18n/use-translation";
import { buttonVariants } from "./ui/button";

// app/access/missing-permission.ts names the same one.
const GRANTOR = "roles.manage";

/** The root boundary renders it alone, with a sign-out button, as the gate refuses before any shell data loads. */
export function NoAccess({
  permission,
  message,
  grantedBy,
  roles,
  requestable,
  signOut = false,
}: {
  permission?: string | null;
  message?: string;
  grantedBy?: string;
  /** The roles that give it, said by the server in the reader's language. */
  roles?: string[];
  /** Roles that give it and may be asked for: each a link to the request form. */
  requestable?: { name: string; label: string }[];
  signOut?: boolean;
}) {
  const { t } = useTranslation();
  const what = permission
    ? t("shell:noAccess.missingPermission", { label: anyPermissionLabel(t, permission), permission })
    : (message ?? t("shell:noAccess.cannotOpen"));
  const who = permission
    ? t("shell:noAccess.grantedBy", { label: anyPermissionLabel(t, GRANTOR), permission: GRANTOR })
    : (grantedBy ?? t("shell:noAccess.askAdministrator"));
  return (
    <div className="max-w-xl" data-testid="no-access">
      <ShieldAlert aria-hidden className="size-10 text-warning" />
      <h1 className="mt-2 text-2xl font-semibold">{t("shell:noAccess.title")}</h1>
      <p className="mt-2 text-muted-foreground">{what}</p>
      {permission && roles?.length ? (
        <p className="mt-2 text-muted-foreground" data-testid="roles-giving">
          {t("shell:noAccess.roles", { roles: roles.join(", "), count: roles.length })}
        </p>
      ) : null}
      <p className="mt-2 text-muted-foreground">{who}</p>
      {requestable?.length && !signOut ? (
        <ul className="mt-4 flex flex-wrap gap-2">
          {requestable.map((r) => (
            <li key={r.name}>
              <Link
                to={`/dashboard/access/requests?role=${encodeURIComponent(r.name)}`}
                className={buttonVariants({ variant: "secondary" })}
              >
                {t("shell:noAccess.ask", { role: r.label })}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {signOut ? (
        <Form method="post" action="/logout" className="mt-4">
          <button type="submit" className={buttonVariants({ variant: "secondary" })}>
            {t("shell:signOut")}
          </button>
        </Form>
      ) : null}
    </div>
  );
}
