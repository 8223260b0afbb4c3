// Reads the intents of a route's action table from its source (the keys of the object literal
// handed to handleIntents), for the tests that check every intent is covered.

/** The text of the object literal opening at `start`, with nested braces' contents left out. */
function topLevel(source: string, start: number): string {
  let depth = 0;
  let out = "";
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    if (c === "{") depth++;
    if (depth === 1 && c !== "{") out += c;
    if (c === "}") {
      depth--;
      if (depth === 0) break;
    }
  }
  return out;
}

export function intentTableKeys(source: string): string[] {
  const code = source.replace(/(^|\s)\/\/.*$/gm, "$1");
  const keys: string[] = [];
  for (const call of code.matchAll(/handleIntents\(\s*\w+\s*,\s*\{/g)) {
    const body = topLevel(code, call.index + call[0].length - 1);
    for (const m of body.matchAll(/(?:^|,)\s*(?:"([\w-]+)"|([A-Za-z_]\w*))\s*:/g)) keys.push(m[1] ?? m[2]!);
  }
  return keys;
}
