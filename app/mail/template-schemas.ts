import { z } from "zod";

// PUT /api/email-templates/:type/:language and its preview: any of the five fields, a string (the
// new words) or null / "" (the default again). Each field's own limit and rules are checked by
// checkChange (email-templates.server.ts), which names the field; this only bounds the body.
const words = z.string().max(4000).nullable().optional();

export const templateChangeSchema = z.strictObject({
  subject: words,
  heading: words,
  message: words,
  button: words,
  footer: words,
});
