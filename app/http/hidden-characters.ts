// Characters that hide or reorder what a reader sees: control characters (C0, C1), the soft
// hyphen, the combining grapheme joiner, the Arabic letter mark, Hangul and Khmer fillers, the
// Mongolian vowel separator, zero-width characters, direction marks and overrides, line and
// paragraph separators, invisible operators and the byte-order mark (variation selectors stay:
// emoji need them). One list for every plain-text field.
const HIDDEN =
  "\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e" +
  "\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\uffa0";

/** Any of them, a line break included: text shown on one line. */
export const HIDDEN_IN_LINE = new RegExp(`[\\u000a${HIDDEN}]`);

/** Any of them but the line break (`\n`): text that may run over several lines. */
export const HIDDEN_IN_TEXT = new RegExp(`[${HIDDEN}]`);
