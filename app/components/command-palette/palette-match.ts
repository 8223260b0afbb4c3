import { defaultFilter } from "cmdk";

// The palette's matching: forgiving of gaps and order of letters within a word (cmdk's own
// command-score, "usr" finds Users), and of the words people use for a thing ("role" finds Access
// control) through keywords in the reader's language and in English.

/** Lower case without accents, so "rene" finds "René". */
export const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase();

/** Below this a match is letters scattered across the text ("adt" in "Audit logs"): noise. */
const LEAST = 0.05;

export type Matchable = { label: string; keywords?: readonly string[] };

/** A word people use for a thing ranks below its name. */
const KEYWORD_WEIGHT = 0.9;

/** 0 for no match; 1 for the whole label. */
export function matchScore(item: Matchable, query: string): number {
  const q = fold(query.trim());
  if (!q) return 1;
  // Each keyword on its own: cmdk would join them into one text, where "default role" could beat "role".
  const scores = [
    defaultFilter(fold(item.label), q),
    ...(item.keywords ?? []).map((k) => KEYWORD_WEIGHT * defaultFilter(fold(k), q)),
  ];
  const score = Math.max(...scores);
  return score >= LEAST ? score : 0;
}

/** The items that match, best first; the order given where they tie. An empty query keeps all. */
export function rank<T>(items: readonly T[], query: string, text: (item: T) => Matchable): T[] {
  if (!query.trim()) return [...items];
  return items
    .map((item, i) => ({ item, i, score: matchScore(text(item), query) }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((m) => m.item);
}

/** Keywords as a translation holds them: one string, words or phrases split on commas. */
export function keywordList(text: string): string[] {
  return text
    .split(",")
    .map((w) => w.trim())
    .filter(Boolean);
}
