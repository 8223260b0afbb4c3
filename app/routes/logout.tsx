import { redirect } from "react-router";
import { audit } from "../audit/audit.server";
import { endSession, getSessionUser } from "../auth/session.server";
import { closeStreamsOf } from "../events/stream.server";
import type { Route } from "./+types/logout";

export async function action(args: Route.ActionArgs) {
  const user = await getSessionUser(args);
  const cookie = await endSession(args.request);
  if (user) {
    closeStreamsOf(user.id);
    await audit(args, { action: "auth.logout", actor: user, target: { type: "user", id: user.id } });
  }
  throw redirect("/login", { headers: { "Set-Cookie": cookie } });
}

export async function loader() {
  throw redirect("/dashboard");
}
