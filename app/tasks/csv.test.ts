import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toCsv } from "./csv";

// Every cell is quoted, and a formula character is neutralised (a leading apostrophe) wherever a
// spreadsheet could start a cell: at the start, and after any `,` `;` tab or line break inside
// the text, in case it splits a quoted cell on a separator it guessed (`;` in German Excel).
describe("toCsv", () => {
  it.each([
    ["plain", '"plain"'],
    ["", '""'],
    ['say "hi"', '"say ""hi"""'],
    ["a,b", '"a,b"'],
    ["line\nbreak", '"line\nbreak"'],
    ["=1+1", `"'=1+1"`],
    ["+1", `"'+1"`],
    ["-5", `"'-5"`],
    ["  =1", `"  '=1"`],
    ["@SUM(A1)", `"'@SUM(A1)"`],
    ["\t=1", `"'\t'=1"`],
    ["\r=1", `"'\r'=1"`],
    ["Mozilla;=1+1;=HYPERLINK(A1);x", `"Mozilla;'=1+1;'=HYPERLINK(A1);x"`],
    ["Mozilla,=1+1,+2,-3,@4", `"Mozilla,'=1+1,'+2,'-3,'@4"`],
    ["x; =cmd|' /C calc'!A0", `"x; '=cmd|' /C calc'!A0"`],
    ["a\n=1\r\n@2", `"a\n'=1\r\n'@2"`],
    ['x;"=1', `"x;""=1"`],
    ["Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0", '"Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0"'],
    ["2026-11-25T00:00:00.000Z", '"2026-11-25T00:00:00.000Z"'],
  ])("writes %j as %j", (value, cell) => {
    expect(toCsv([[value]])).toBe(`${cell}\r\n`);
  });

  it("quotes every cell of every row, with CRLF line ends", () => {
    expect(
      toCsv([
        ["name", "user_agent"],
        ["Ana", "Mozilla;=1+1;=HYPERLINK(A1);x"],
      ]),
    ).toBe(`"name","user_agent"\r\n"Ana","Mozilla;'=1+1;'=HYPERLINK(A1);x"\r\n`);
  });

  it("leaves no piece that starts with a formula, however a spreadsheet splits the text", () => {
    const text = fc.string({
      unit: fc.constantFrom("=", "+", "-", "@", "\t", "\r", "\n", ",", ";", " ", '"', "a"),
    });
    fc.assert(
      fc.property(text, (value) => {
        const out = toCsv([[value]]);
        expect(out.startsWith('"') && out.endsWith('"\r\n')).toBe(true);
        const inner = out.slice(1, -3);
        expect(inner.replaceAll('""', "")).not.toContain('"');
        for (const piece of inner.replaceAll('""', '"').split(/[,;\t\r\n]/))
          expect(piece.trimStart(), JSON.stringify(value)).not.toMatch(/^[=+\-@]/);
        // Nothing is lost: dropping the apostrophes added gives the value back.
        expect(inner.replaceAll('""', '"').replaceAll("'", "")).toBe(value.replaceAll("'", ""));
      }),
    );
  });
});
