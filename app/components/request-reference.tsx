import { createContext, useContext } from "react";
import { useTranslation } from "../i18n/use-translation";

// The request id on error pages (decision 026). A failed page may have no loader data, so the id
// travels in a React context and a <meta name="request-id"> the browser reads back when it hydrates.

const RequestIdContext = createContext<string | null>(null);

export const RequestIdProvider = RequestIdContext.Provider;

const META = "request-id";

function useDocumentRequestId(): string | null {
  const fromServer = useContext(RequestIdContext);
  if (fromServer || typeof document === "undefined") return fromServer;
  return document.querySelector(`meta[name="${META}"]`)?.getAttribute("content") || null;
}

export function RequestIdMeta() {
  const id = useDocumentRequestId();
  return id ? <meta name={META} content={id} /> : null;
}

// After hydration a failing page is a failed `.data` request, whose own X-Request-Id is the reference.
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

function useErrorReference(): string | null {
  const documentId = useDocumentRequestId();
  return lastFailedId ?? documentId;
}

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
