import { intlLocale } from "../../i18n/options";

type Words = { language?: string; others?: (n: number) => string };

const englishOthers = (n: number) => `${n} ${n === 1 ? "other" : "others"}`;

/**
 * "Ada", "Ada and Bob", "Ada, Bob and Cy", "Ada, Bob, Cy and 4 others": who a bulk act reaches.
 * Joined by Intl.ListFormat in the page's language ("Ada, Bob und Cy"); `others` says the rest.
 */
export function nameList(
  names: string[],
  { language = "en", others = englishOthers }: Words = {},
  shown = 3,
) {
  if (names.length <= 1) return names[0] ?? "";
  const list = new Intl.ListFormat(intlLocale(language), { style: "long", type: "conjunction" });
  if (names.length <= shown) return list.format(names);
  return list.format([...names.slice(0, shown), others(names.length - shown)]);
}
