import { ShieldAlert } from "lucide-react";
import { Form } from "react-router";
import { anyPermissionLabel } from "../access/permission-labels";
import { useTranslation } from "../i18n/use-translation";
import { buttonVariants } from "./ui/button";

// Who may grant a missing permission (app/access/missing-permission.ts names the same one).
const GRANTOR = "roles.manage";

/**
 * What a signed-in account sees where it may not go: what is missing and who can grant it. Inside
 * the dashboard shell it sits in the main region, so the sidebar still leads elsewhere. The root
 * boundary renders it alone (the access gate refuses before any loader ran, so there is no shell
 * data), with a sign-out button that needs none.
 *
 * A missing permission is said here from its key; any other refusal arrives said in the request's
 * language (app/auth/guard.server.ts) and is shown as it is.
 */
export function NoAccess({
  permission,
  message,
  grantedBy,
  signOut = false,
}: {
  permission?: string | null;
  message?: string;
  grantedBy?: string;
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
      <p className="mt-2 text-muted-foreground">{who}</p>
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
