import { redirect } from "react-router";
import { getSessionUser } from "../auth/session.server";
import type { Route } from "./+types/home";

export async function loader(args: Route.LoaderArgs) {
  const user = await getSessionUser(args);
  throw redirect(user ? "/dashboard" : "/login");
}
