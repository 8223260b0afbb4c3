/** A language named in itself ("Deutsch", "English"), whatever the page's language. */
export function languageName(language: string): string {
  const name = new Intl.DisplayNames([language], { type: "language" }).of(language) ?? language;
  return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
}
