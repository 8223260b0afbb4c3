import { z } from "zod";
import { emailField } from "../email-address";

/** `POST /api/mail` {to}: one test email with the current settings (spec 4.4). */
export const testMailBody = z.object({ to: emailField });
