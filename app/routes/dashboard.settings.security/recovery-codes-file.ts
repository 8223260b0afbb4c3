import type { TFunction } from "i18next";

// What Download writes: a plain-text file a person can keep with their papers. Kept apart from the
// component so its wording and name are tested without a browser.

/** "acme-dashboard-recovery-codes.txt": the product's name, ASCII-only, then what the file holds. */
export function recoveryCodesFileName(appName: string, t: TFunction): string {
  const product = appName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  const what = t("settings:twoFactor.codesFile.name");
  return `${product ? `${product}-` : ""}${what}.txt`;
}

/** The file's text: whose codes they are, for which product, when made, then one code a line. */
export function recoveryCodesText(
  input: { appName: string; email: string; codes: string[]; made: string },
  t: TFunction,
): string {
  return [
    t("settings:twoFactor.codesFile.heading", { appName: input.appName }),
    t("settings:twoFactor.codesFile.account", { email: input.email }),
    t("settings:twoFactor.codesFile.made", { date: input.made }),
    "",
    t("settings:twoFactor.codesFile.use"),
    "",
    ...input.codes,
    "",
  ].join("\n");
}
