import { parse } from "csv-parse/sync";
import { IMPORT_UPLOAD_LIMIT } from "../http/body-limits";
import type { Message } from "../i18n/message";
import type { IMPORT_COLUMNS } from "./import-format";

// Reading an import file (Users → Import): bytes to rows, or one clear refusal of the whole file
// (not UTF-8, too many rows, no email column, not CSV at all). Per-row checks are import.server.ts'.

export const IMPORT_MAX_BYTES = IMPORT_UPLOAD_LIMIT;
export const IMPORT_MAX_ROWS = 20_000;

export type ImportRow = { line: number; name: string; email: string; roles: string[]; teams: string[] };

export type ParsedFile = { ok: true; rows: ImportRow[] } | { ok: false; problem: Message };

/** "a; b | c" → ["a", "b", "c"]: roles and teams are listed in one cell. */
function list(cell: string | undefined): string[] {
  return [
    ...new Set(
      (cell ?? "")
        .split(/[;|]/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export function parseImportFile(bytes: Uint8Array): ParsedFile {
  if (bytes.byteLength > IMPORT_MAX_BYTES)
    return {
      ok: false,
      problem: { key: "users.import.tooLarge", values: { mb: IMPORT_MAX_BYTES / 1024 / 1024 } },
    };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, problem: { key: "users.import.notUtf8" } };
  }
  if (text.includes("\u0000")) return { ok: false, problem: { key: "users.import.notUtf8" } };
  let records: string[][];
  // The file's line each record ends on, in the records' order (a quoted cell may span several).
  const lines: number[] = [];
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      relax_quotes: true,
      relax_column_count: true,
      trim: true,
      on_record: (record, context) => {
        lines.push(context.lines);
        return record;
      },
      // One row past the limit is enough to know the file is too long; the rest is never read.
      to: IMPORT_MAX_ROWS + 2,
      max_record_size: 64 * 1024,
    });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    return { ok: false, problem: { key: "users.import.notCsv", values: { line: line ?? 1 } } };
  }
  const [header, ...body] = records;
  if (!header) return { ok: false, problem: { key: "users.import.empty" } };
  const columns = header.map((h) => h.trim().toLowerCase());
  const at = (name: (typeof IMPORT_COLUMNS)[number]) => columns.indexOf(name);
  if (at("email") < 0) return { ok: false, problem: { key: "users.import.noEmailColumn" } };
  if (body.length === 0) return { ok: false, problem: { key: "users.import.empty" } };
  if (body.length > IMPORT_MAX_ROWS)
    return { ok: false, problem: { key: "users.import.tooManyRows", values: { max: IMPORT_MAX_ROWS } } };
  const cell = (record: string[], name: (typeof IMPORT_COLUMNS)[number]) =>
    at(name) < 0 ? "" : (record[at(name)] ?? "").trim();
  return {
    ok: true,
    rows: body.map((record, i) => ({
      // The file's line a person finds it on (a quoted cell may span several: its last).
      line: lines[i + 1] ?? 0,
      name: cell(record, "name"),
      email: cell(record, "email"),
      roles: list(cell(record, "roles")),
      teams: list(cell(record, "teams")),
    })),
  };
}
