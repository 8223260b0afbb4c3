import { NotFound } from "../domain-errors";
import { pageError } from "../http/form.server";
import { getT } from "../i18n/i18n.server";
import type { Route } from "./+types/not-found";

export function loader({ context }: Route.LoaderArgs) {
  pageError(new NotFound("pages.notFound"), getT(context));
}

export default function NotFoundPage() {
  return null;
}
