/** "Ada", "Ada and Bob", "Ada, Bob and Cy", "Ada, Bob, Cy and 4 others": who a bulk act reaches. */
export function nameList(names: string[], shown = 3): string {
  if (names.length <= 1) return names[0] ?? "";
  if (names.length <= shown) return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const rest = names.length - shown;
  return `${names.slice(0, shown).join(", ")} and ${rest} ${rest === 1 ? "other" : "others"}`;
}

/** "1 user", "3 users". */
export function countUsers(n: number): string {
  return `${n} ${n === 1 ? "user" : "users"}`;
}
