/**
 * The cells of one line of the CSV exports write (app/tasks/csv.ts), for Vitest and Playwright:
 * every cell is quoted, a quote inside doubled. A line that breaks this (an unquoted cell) fails.
 */
export function csvCells(line: string): string[] {
  if (!/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/.test(line))
    throw new Error(`not an all-quoted CSV line: ${line}`);
  return [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replaceAll('""', '"'));
}
