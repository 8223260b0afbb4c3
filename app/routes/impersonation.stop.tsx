import { redirect } from "react-router";
import { stopImpersonation } from "../auth/impersonation.server";
import { handleAction } from "../auth/intents.server";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import type { Route } from "./+types/impersonation.stop";

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

// The banner's "Stop" (app/components/impersonation-banner.tsx). Outside /dashboard on purpose:
// it must work whatever the account viewed as may open.
export async function action(args: Route.ActionArgs) {
  return handleAction(args, "stop-impersonation", {
    run: async ({ actor }) => {
      const stopped = await stopImpersonation(actor, args);
      const t = getT(args.context);
      if (!stopped)
        return redirectWithToast("/dashboard", {
          kind: "info",
          message: t("shell:impersonation.notViewing"),
        });
      return redirectWithToast(`/dashboard/users/${stopped.id}`, {
        kind: "success",
        message: t("shell:impersonation.stopped", { name: stopped.name }),
      });
    },
  });
}

export async function loader() {
  throw redirect("/dashboard");
}
