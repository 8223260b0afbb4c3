// The one CSV writer (audit export, users export). Spreadsheets run a cell that starts with
// `= + - @` (or tab, carriage return) as a formula (CSV injection), and one that guesses the
// separator (`;` in German Excel, a tab) may split even a quoted cell's text there. So every cell
// is quoted, and a formula character gets a leading apostrophe wherever a cell could start: at the
// start of the text and after any `,` `;` tab or line break in it (spaces between skipped).
// Hand-written: csv-stringify's `escape_formulas` and Papa Parse's `escapeFormulae` look only at
// the start of a cell, and quoting every cell is one replace.
const FORMULA_WHERE_A_CELL_MAY_START = /(?<=(?:^|[,;\t\r\n]) *)(?=[=+\-@\t\r])/g;

function cell(value: string): string {
  const safe = value.replace(FORMULA_WHERE_A_CELL_MAY_START, "'");
  return `"${safe.replaceAll('"', '""')}"`;
}

/** RFC 4180 CSV with CRLF line ends, every cell quoted and formulas neutralised. */
export function toCsv(rows: string[][]): string {
  return `${rows.map((row) => row.map(cell).join(",")).join("\r\n")}\r\n`;
}
