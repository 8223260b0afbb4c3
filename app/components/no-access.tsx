import { ShieldAlert } from "lucide-react";
import { Form } from "react-router";

/**
 * What a signed-in account sees where it may not go: what is missing and who can grant it. Inside
 * the dashboard shell it sits in the main region, so the sidebar still leads elsewhere. The root
 * boundary renders it alone (the access gate refuses before any loader ran, so there is no shell
 * data), with a sign-out button that needs none.
 */
export function NoAccess({
  message,
  grantedBy,
  signOut = false,
}: {
  message?: string;
  grantedBy?: string;
  signOut?: boolean;
}) {
  return (
    <div className="max-w-xl" data-testid="no-access">
      <ShieldAlert aria-hidden className="size-10 text-amber-700 dark:text-amber-400" />
      <h1 className="mt-2 text-2xl font-semibold">No access</h1>
      <p className="mt-2 text-slate-700 dark:text-slate-300">
        {message ?? "Your account cannot open this page."}
      </p>
      <p className="mt-2 text-slate-700 dark:text-slate-300">
        {grantedBy ?? "Ask an administrator to grant you access."}
      </p>
      {signOut ? (
        <Form method="post" action="/logout" className="mt-4">
          <button
            type="submit"
            className="rounded-md border border-slate-300 px-4 py-2 text-sm dark:border-slate-600"
          >
            Sign out
          </button>
        </Form>
      ) : null}
    </div>
  );
}
