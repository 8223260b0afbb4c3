import { finishSingleSignOn } from "../auth/sso-flow.server";
import type { Route } from "./+types/auth.oidc.$provider.callback";

// Where the identity provider sends the browser back (app/auth/sso-flow.server.ts).
export const loader = (args: Route.LoaderArgs) => finishSingleSignOn(args, args.params.provider);
