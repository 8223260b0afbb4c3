// What an import file looks like, for the browser (the template) and the reader (import-csv.ts).

export const IMPORT_COLUMNS = ["name", "email", "roles", "teams"] as const;

/** What the template offers for download: the header and one example row. */
export const IMPORT_TEMPLATE =
  "name,email,roles,teams\r\nAda Lovelace,ada@example.com,user,Engineering; Research\r\n";
