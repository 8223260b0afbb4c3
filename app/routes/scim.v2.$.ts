import { handleScim } from "../directory/scim-http.server";
import type { Route } from "./+types/scim.v2.$";

// SCIM 2.0 provisioning for directories (Okta, Microsoft Entra ID): app/directory/scim-http.server.ts.
export const loader = (args: Route.LoaderArgs) => handleScim(args);
export const action = (args: Route.ActionArgs) => handleScim(args);
