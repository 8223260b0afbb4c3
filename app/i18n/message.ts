import type { TFunction } from "i18next";

/**
 * Validation and refusal messages are written in English where they are raised (zod schemas shared
 * by browser and server, domain errors), and the API answers them in English (the HTTP contract).
 * A page translates one when it shows it: the English sentence is the key of the "messages"
 * namespace, so it cannot be split at its dots or colons.
 */
export function translateMessage(t: TFunction, message: string): string {
  return t(message, { ns: "messages", keySeparator: false, nsSeparator: false, defaultValue: message });
}
