// The palette's "Recent": the last places a person opened from it, kept in this browser per account
// (another account signing in on the same browser never sees them).

export type RecentItem = {
  kind: "page" | "user" | "team" | "view";
  id: string;
  label: string;
  detail?: string;
  url: string;
};

const MAX = 5;
const key = (userId: string) => `palette-recent:${userId}`;

export function readRecent(userId: string): RecentItem[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(key(userId)) ?? "[]");
    return Array.isArray(parsed) ? (parsed as RecentItem[]).slice(0, MAX) : [];
  } catch {
    return [];
  }
}

export function rememberRecent(userId: string, item: RecentItem) {
  try {
    const rest = readRecent(userId).filter((r) => !(r.kind === item.kind && r.id === item.id));
    localStorage.setItem(key(userId), JSON.stringify([item, ...rest].slice(0, MAX)));
  } catch {
    // Storage full or refused (private mode): the palette works without its recent list.
  }
}
