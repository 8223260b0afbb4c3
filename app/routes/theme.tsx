import { data, redirect } from "react-router";
import { z } from "zod";
import { readForm } from "../http/read-form.server";
import { refusal } from "../http/responses";
import { THEMES, themeSetCookie } from "../http/theme.server";
import type { Route } from "./+types/theme";

const schema = z.object({ theme: z.enum(THEMES) });

export async function action({ request }: Route.ActionArgs) {
  const parsed = schema.safeParse(Object.fromEntries(await readForm(request)));
  if (!parsed.success) return refusal(400, "invalid_theme", {});
  return data({ ok: true }, { headers: { "Set-Cookie": await themeSetCookie(parsed.data.theme) } });
}

export async function loader() {
  throw redirect("/dashboard");
}
