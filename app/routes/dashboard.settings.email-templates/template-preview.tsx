import { useEffect, useRef, useState } from "react";
import type { FetcherWithComponents } from "react-router";
import { Button, focusRing } from "../../components/ui/button";
import { FormError } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";
import type { TemplateAnswer } from "./types";

/**
 * The mail as the real renderer makes it, HTML and plain text. Dark shows what a mail client in
 * dark mode does to it (most invert the light colours), so a custom text stays readable in both.
 */
export function TemplatePreview({ fetcher }: { fetcher: FetcherWithComponents<unknown> }) {
  const { t } = useTranslation();
  const [dark, setDark] = useState(false);
  const [shown, setShown] = useState<TemplateAnswer["preview"]>();
  const answer = fetcher.data as TemplateAnswer | undefined;
  const preview = answer?.preview ?? shown;
  if (answer?.preview && answer.preview !== shown) setShown(answer.preview);
  const problems =
    answer && !answer.ok ? Object.values(answer.errors ?? {}).concat(answer.formError ?? []) : [];
  return (
    <section aria-labelledby="email-preview-title" className="mt-6 flex flex-col gap-3 border-t pt-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id="email-preview-title" className="font-semibold">
          {t("settings:emailTemplates.preview")}
        </h3>
        <div className="flex gap-1">
          <Button
            type="button"
            size="sm"
            variant={dark ? "outline" : "secondary"}
            aria-pressed={!dark}
            onClick={() => setDark(false)}
          >
            {t("settings:emailTemplates.light")}
          </Button>
          <Button
            type="button"
            size="sm"
            variant={dark ? "secondary" : "outline"}
            aria-pressed={dark}
            onClick={() => setDark(true)}
          >
            {t("settings:emailTemplates.dark")}
          </Button>
        </div>
      </div>
      <p role="status" className="text-sm text-muted-foreground">
        {fetcher.state !== "idle" ? t("settings:emailTemplates.previewUpdating") : null}
      </p>
      {problems.map((p) => (
        <FormError key={p} message={p} />
      ))}
      {preview ? (
        <>
          <p className="text-sm font-medium" data-testid="preview-subject">
            {t("settings:emailTemplates.previewSubject", { subject: preview.subject })}
          </p>
          <p className="text-sm font-medium">{t("settings:emailTemplates.previewHtml")}</p>
          <MailHtml html={preview.html} dark={dark} label={t("settings:emailTemplates.previewFrame")} />
          <p className="text-sm font-medium">{t("settings:emailTemplates.previewText")}</p>
          <pre
            data-testid="preview-text"
            // Scrolls: reachable by keyboard.
            tabIndex={0}
            className={`max-h-72 overflow-auto whitespace-pre-wrap rounded-md border bg-muted p-3 text-sm ${focusRing}`}
          >
            {preview.text}
          </pre>
        </>
      ) : null}
    </section>
  );
}

/**
 * The mail's HTML in a shadow root: its inline styles apply and the page's do not reach it. Not a
 * srcdoc frame, which inherits the page's `frame-ancestors 'none'` and stays blank. The markup is
 * the server's renderer's, every text in it escaped by React; the page's CSP runs no script in it.
 */
function MailHtml({ html, dark, label }: { html: string; dark: boolean; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const root = element.shadowRoot ?? element.attachShadow({ mode: "open" });
    root.innerHTML = html;
  }, [html]);
  return (
    <div
      ref={host}
      role="region"
      aria-label={label}
      data-testid="preview-html"
      tabIndex={0}
      className={`max-h-[32rem] overflow-auto rounded-md border bg-white ${focusRing}`}
      style={dark ? { filter: "invert(1) hue-rotate(180deg)" } : undefined}
    />
  );
}
