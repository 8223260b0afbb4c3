import { apiDocument } from "../api-docs/document.server";

// The API's description, OpenAPI 3.1, generated from the routes' own schemas (app/api-docs/).
// Public: it names endpoints and their inputs, nothing of anyone's data or secrets.

export function loader() {
  return Response.json(apiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
