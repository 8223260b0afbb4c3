import { createInstance, type i18n, type TFunction } from "i18next";
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { RemixI18Next } from "remix-i18next/server";
import { FALLBACK_LANGUAGE, i18nOptions } from "./options";
import { resources, supportedLanguages } from "./resources.server";

// One i18next instance per language, as nothing calls changeLanguage; this module knows no person,
// so i18n stays below every domain (docs/architecture.md).

const languageContext = createContext<string>(FALLBACK_LANGUAGE);

let detector: RemixI18Next | undefined;
const instances = new Map<string, i18n>();

/** A test fails where a page would show the raw key. */
function strictInTests() {
  if (!process.env.VITEST) return {};
  return {
    saveMissing: true,
    missingKeyHandler: (languages: readonly string[], ns: string, key: string) => {
      throw new Error(`Missing translation "${ns}:${key}" (${languages.join(", ")})`);
    },
  };
}

export function i18nFor(language: string): i18n {
  const lng = supportedLanguages().includes(language) ? language : FALLBACK_LANGUAGE;
  let instance = instances.get(lng);
  if (!instance) {
    instance = createInstance({ ...i18nOptions(lng, resources()), ...strictInTests() });
    instance.init();
    instances.set(lng, instance);
  }
  return instance;
}

/** Outside any request (emails to a person in their own language). */
export function tFor(language: string | null | undefined): TFunction {
  return i18nFor(language ?? FALLBACK_LANGUAGE).t;
}

async function languageFromHeader(request: Request): Promise<string> {
  detector ??= new RemixI18Next({
    detection: {
      supportedLanguages: supportedLanguages(),
      fallbackLanguage: FALLBACK_LANGUAGE,
      order: ["header"],
    },
  });
  return detector.getLocale(request);
}

export async function resolveLanguage(request: Request, setting: string | null | undefined): Promise<string> {
  if (setting && supportedLanguages().includes(setting)) return setting;
  return languageFromHeader(request);
}

export function languageMiddleware(
  settingOf: (args: Parameters<MiddlewareFunction<Response>>[0]) => Promise<string | null | undefined>,
): MiddlewareFunction<Response> {
  return async (args, next) => {
    args.context.set(languageContext, await resolveLanguage(args.request, await settingOf(args)));
    return next();
  };
}

export function getLanguage(context: Readonly<RouterContextProvider>): string {
  return context.get(languageContext);
}

export function getI18n(context: Readonly<RouterContextProvider>): i18n {
  return i18nFor(getLanguage(context));
}

export function getT(context: Readonly<RouterContextProvider>): TFunction {
  return getI18n(context).t;
}
