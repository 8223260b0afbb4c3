import type { i18n as I18n } from "i18next";

// `t(key, values)` for plain `{{name}}` templates without i18next's per-call machinery, which made a
// new Intl.NumberFormat per call (decision 041); anything else returns undefined and goes to i18next.

type Part = string | { name: string; number: boolean };
type Template = Part[] | null;

const PLACEHOLDER = /\{\{(.+?)\}\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const OWN_OPTIONS = new Set([
  "count",
  "context",
  "ordinal",
  "lng",
  "lngs",
  "fallbackLng",
  "ns",
  "defaultNS",
  "keyPrefix",
  "replace",
  "returnObjects",
  "returnDetails",
  "returnEmptyString",
  "joinArrays",
  "postProcess",
  "interpolation",
  "skipInterpolation",
  "keySeparator",
  "nsSeparator",
  "formatParams",
  "locale",
  "localeMatcher",
  "numberingSystem",
  "style",
  "currency",
  "currencyDisplay",
  "currencySign",
  "unit",
  "unitDisplay",
  "notation",
  "compactDisplay",
  "signDisplay",
  "useGrouping",
  "minimumIntegerDigits",
  "minimumFractionDigits",
  "maximumFractionDigits",
  "minimumSignificantDigits",
  "maximumSignificantDigits",
  "roundingMode",
  "roundingPriority",
  "roundingIncrement",
  "trailingZeroDisplay",
]);

function parse(text: string): Template {
  if (/\$t\(/.test(text)) return null;
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const [name, format, ...rest] = match[1]!.split(",").map((s) => s.trim());
    if (!name || !NAME.test(name) || rest.length > 0) return null;
    if (format !== undefined && format !== "number") return null;
    parts.push(text.slice(last, match.index), { name, number: format === "number" });
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

const templates = new WeakMap<I18n, Map<string, Template>>();
const numberFormats = new Map<string, Intl.NumberFormat>();

function templateOf(i18n: I18n, language: string, key: string): Template {
  let byKey = templates.get(i18n);
  if (!byKey) {
    byKey = new Map();
    templates.set(i18n, byKey);
  }
  const cacheKey = `${language}\u0000${key}`;
  let template = byKey.get(cacheKey);
  if (template === undefined) {
    const colon = key.indexOf(":");
    const ns = colon === -1 ? (i18n.options.defaultNS as string) : key.slice(0, colon);
    const path = colon === -1 ? key : key.slice(colon + 1);
    const text: unknown = path.includes(":") ? undefined : i18n.getResource(language, ns, path);
    template = typeof text === "string" ? parse(text) : null;
    byKey.set(cacheKey, template);
  }
  return template;
}

function formatNumber(language: string, value: number): string {
  let format = numberFormats.get(language);
  if (!format) {
    format = new Intl.NumberFormat(language);
    numberFormats.set(language, format);
  }
  return format.format(value);
}

export function fillTemplate(
  i18n: I18n,
  language: string,
  key: string,
  values: Record<string, unknown>,
): string | undefined {
  if (Object.getPrototypeOf(values) !== Object.prototype) return undefined;
  for (const name in values) if (OWN_OPTIONS.has(name) || name.startsWith("defaultValue")) return undefined;
  const template = templateOf(i18n, language, key);
  if (!template) return undefined;
  let out = "";
  for (const part of template) {
    if (typeof part === "string") {
      out += part;
      continue;
    }
    const value = Object.hasOwn(values, part.name) ? values[part.name] : undefined;
    if (typeof value === "string") {
      if (part.number) return undefined;
      out += value;
    } else if (typeof value === "number") out += part.number ? formatNumber(language, value) : String(value);
    else return undefined;
  }
  return out;
}
