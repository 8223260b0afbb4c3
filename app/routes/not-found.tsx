import { NotFound } from "../domain-errors";
import { pageError } from "../http/form.server";

export function loader() {
  pageError(new NotFound("The page you are looking for does not exist."));
}

export default function NotFoundPage() {
  return null;
}
