// Characters that hide or reorder what a reader sees: control characters (C0, C1), the Arabic
// letter mark, zero-width characters, direction marks and overrides, line and paragraph
// separators, invisible operators and the byte-order mark. One list for every plain-text field.
const HIDDEN =
  "\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\ufeff";

/** Any of them, a line break included: text shown on one line. */
export const HIDDEN_IN_LINE = new RegExp(`[\\u000a${HIDDEN}]`);

/** Any of them but the line break (`\n`): text that may run over several lines. */
export const HIDDEN_IN_TEXT = new RegExp(`[${HIDDEN}]`);
