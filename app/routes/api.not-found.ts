import { apiError } from "../http/responses";

export function loader() {
  return apiError(404, "not_found");
}

export function action() {
  return apiError(404, "not_found");
}
