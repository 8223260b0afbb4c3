import { ShieldAlert } from "lucide-react";
import { Form } from "react-router";

/**
 * The page a signed-in account sees where it may not go. Rendered by the dashboard's boundary and
 * by the root one (the access gate refuses in root middleware, before any loader ran), so the
 * sign-out button does not depend on loader data.
 */
export function NoAccess({ message, email }: { message?: string; email?: string }) {
  return (
    <main className="mx-auto max-w-lg p-8" data-testid="no-access">
      <ShieldAlert aria-hidden className="size-10 text-amber-600" />
      <h1 className="mt-2 text-2xl font-semibold">No access</h1>
      <p className="mt-2 text-slate-700 dark:text-slate-300">
        {message ?? "Your account cannot open this page."} Ask an administrator to grant you access.
      </p>
      <Form method="post" action="/logout" className="mt-4">
        <button
          type="submit"
          className="rounded-md border border-slate-300 px-4 py-2 text-sm dark:border-slate-600"
        >
          {email ? `Sign out (${email})` : "Sign out"}
        </button>
      </Form>
    </main>
  );
}
