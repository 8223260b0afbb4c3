/**
 * NUL is never typed by a person, and PostgreSQL text can neither store nor compare it (the query
 * fails: a 500 there, while SQLite goes along). Text from a URL or a body is checked with this
 * before it reaches a query, so both databases answer alike.
 */
export const hasNoNul = (text: string) => !text.includes("\u0000");

export const NUL_MESSAGE = "Text must not contain NUL characters.";
