import { createContext, useContext } from "react";
import { useTranslation } from "../i18n/use-translation";

// The request id on error pages (docs/decisions/026-request-ids.md): "Reference: …" is what a user
// quotes, and it leads to the server's log lines and audit rows of that request.
//
// It cannot come from loader data: a page that failed may have no loader data at all (the root
// loader or a middleware threw), yet React Router still renders the Layout and the ErrorBoundary.
// So the server renders with the id in a React context (entry.server.tsx) and writes it into a
// <meta name="request-id">, from which the browser reads it back when it hydrates.

const RequestIdContext = createContext<string | null>(null);

/** entry.server.tsx wraps the document in it, with the request's id. */
export const RequestIdProvider = RequestIdContext.Provider;

const META = "request-id";

/** The id of the request that rendered this document (the server's, or the meta it wrote). */
function useDocumentRequestId(): string | null {
  const fromServer = useContext(RequestIdContext);
  if (fromServer || typeof document === "undefined") return fromServer;
  return document.querySelector(`meta[name="${META}"]`)?.getAttribute("content") || null;
}

/** In the Layout's <head>: carries the id from the server's render to the browser's. */
export function RequestIdMeta() {
  const id = useDocumentRequestId();
  return id ? <meta name={META} content={id} /> : null;
}

// After hydration, a failing page is a client navigation whose data request (`.data`) failed: its
// X-Request-Id names the request that failed, not the document loaded long before. Remember the
// last failed one; the fetch is React Router's, so it is observed here rather than in each route.
let lastFailedId: string | null = null;
const holder = (typeof window === "undefined" ? {} : window) as { __requestIdFetch?: true };
if (typeof window !== "undefined" && !holder.__requestIdFetch) {
  holder.__requestIdFetch = true;
  const fetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status >= 500 && new URL(response.url, location.href).pathname.endsWith(".data"))
      lastFailedId = response.headers.get("X-Request-Id") ?? lastFailedId;
    return response;
  };
}

/** The reference an error page shows: the failed data request's id, else the document's. */
function useErrorReference(): string | null {
  const documentId = useDocumentRequestId();
  return lastFailedId ?? documentId;
}

/** "Reference: <id>" for error pages, for the user to quote when they report the error. */
export function RequestReference({ className }: { className?: string }) {
  const { t } = useTranslation();
  const id = useErrorReference();
  if (!id) return null;
  return (
    <div className={className ?? "mt-4 text-sm text-muted-foreground"}>
      <p className="break-all font-mono" data-request-id={id}>
        {t("requests:reference", { id })}
      </p>
      <p>{t("requests:referenceHint")}</p>
    </div>
  );
}
