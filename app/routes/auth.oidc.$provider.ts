import { startSingleSignOn } from "../auth/sso-flow.server";
import type { Route } from "./+types/auth.oidc.$provider";

// "Sign in with …": sends the browser to the identity provider (app/auth/sso-flow.server.ts).
export const loader = (args: Route.LoaderArgs) => startSingleSignOn(args, args.params.provider);
