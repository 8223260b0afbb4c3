import { redirect } from "react-router";
import { signOut } from "../auth/sign-out.server";
import type { Route } from "./+types/logout";

export async function action(args: Route.ActionArgs) {
  const cookie = await signOut(args);
  throw redirect("/login", { headers: { "Set-Cookie": cookie } });
}

export async function loader() {
  throw redirect("/dashboard");
}
