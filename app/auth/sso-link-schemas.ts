import { z } from "zod";
import { loginSchema } from "./account-schemas";
import { twoFactorCodeSchema } from "./two-factor-schemas";

// The proof page of a pending single sign-on link (/login/sso-link, app/auth/sso-link.server.ts):
// the account's password, or a two-factor code. Shared by the browser (conform) and the server.

export const linkPasswordSchema = z.object({ password: loginSchema.shape.password });
export const linkCodeSchema = twoFactorCodeSchema;
