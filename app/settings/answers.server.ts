import { data } from "react-router";

/**
 * A Settings form's success: the intent it answers, the line its section shows, and what a page
 * hands over once (a directory's token) beside them.
 */
export function done<I extends string, E extends Record<string, unknown> = Record<never, never>>(
  intent: I,
  message: string,
  extra?: E,
) {
  return data({
    ok: true as const,
    intent,
    errors: {} as Record<string, string>,
    formError: null,
    message,
    ...(extra as E),
  });
}
