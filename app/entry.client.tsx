// First: configures zod before any module builds a schema (see the module).
import "./zod-jitless.client";
import { createInstance } from "i18next";
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider } from "react-i18next";
import { HydratedRouter } from "react-router/dom";
import { loadLanguage } from "./i18n/load-language";
import { FALLBACK_LANGUAGE, i18nOptions } from "./i18n/options";

// A request the router cancelled is no error. React Router 7.18 aborts a fetcher's request when its
// action answers with an error (abortFetcher), and its turbo-stream decode() may still be reading
// that response: the promise it hands back for the rest of the body then rejects with the
// AbortError, and nothing awaits it (node_modules/react-router/dist: decode, fetchAndDecodeViaTurboStream).
window.addEventListener("unhandledrejection", (event) => {
  if (event.reason instanceof DOMException && event.reason.name === "AbortError") event.preventDefault();
});

// The server rendered the page in <html lang>; the same language's strings load before hydration,
// so the first client render matches the server's text.
async function hydrate() {
  const language = document.documentElement.lang || FALLBACK_LANGUAGE;
  const [own, fallback] = await Promise.all([
    loadLanguage(language),
    language === FALLBACK_LANGUAGE ? null : loadLanguage(FALLBACK_LANGUAGE),
  ]);
  const i18n = createInstance(
    i18nOptions(language, { [language]: own, ...(fallback ? { [FALLBACK_LANGUAGE]: fallback } : {}) }),
  );
  await i18n.init();
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <I18nextProvider i18n={i18n}>
          <HydratedRouter />
        </I18nextProvider>
      </StrictMode>,
    );
  });
}

void hydrate();
