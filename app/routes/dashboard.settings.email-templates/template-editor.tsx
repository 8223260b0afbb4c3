import { useEffect, useId, useRef } from "react";
import { useFetcher } from "react-router";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { controlVariants, errorTextClass, hintClass, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import { SectionStatus } from "../../routes/dashboard.settings/use-settings-form";
import type { action } from "./route";
import { TemplatePreview } from "./template-preview";
import type { EmailTemplatesData, TemplateAnswer } from "./types";

const FIELDS = ["subject", "heading", "message", "button", "footer"] as const;
type Field = (typeof FIELDS)[number];
const MULTILINE: ReadonlySet<Field> = new Set(["message", "footer"]);

/**
 * The editor's answers (saved, sent, reset), held by the page: the editor remounts for each new
 * version, and a fetcher whose only holder unmounted is dropped once idle, its answer with it
 * (the status went blank under CI's load when the new version arrived after the answer).
 */
export function useTemplateFetchers(data: Pick<EmailTemplatesData, "type" | "language">) {
  const at = `${data.type}/${data.language}`;
  return {
    save: useFetcher<typeof action>({ key: `email-template-save:${at}` }),
    test: useFetcher<typeof action>({ key: `email-template-test:${at}` }),
    reset: useFetcher<typeof action>({ key: `email-template-reset:${at}` }),
  };
}

/** The five fields beside their defaults, the placeholders as buttons, save, test and reset. */
export function TemplateEditor({
  data,
  fetchers: { save, test, reset },
}: {
  data: EmailTemplatesData;
  fetchers: ReturnType<typeof useTemplateFetchers>;
}) {
  const { t } = useTranslation();
  const formId = useId();
  const resetId = useId();
  const form = useRef<HTMLFormElement>(null);
  const answer = save.data as TemplateAnswer | undefined;
  const locked = !data.editable;

  // The preview follows the fields as they are typed.
  const preview = useFetcher<typeof action>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  function refreshPreview() {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!form.current) return;
      const body = new FormData(form.current);
      body.set("intent", "preview");
      preview.submit(body, { method: "post" });
    }, 350);
  }
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, for the words as loaded
  useEffect(() => {
    refreshPreview();
    return () => clearTimeout(timer.current);
  }, []);

  return (
    <Card title={t(`settings:emailTemplates.types.${data.type}`)}>
      {locked ? (
        <p role="note" className="mb-3 rounded-md border border-input p-3 text-sm">
          {t("settings:emailTemplates.superAdminOnly")}
        </p>
      ) : null}
      <save.Form
        method="post"
        ref={form}
        id={formId}
        className="flex flex-col gap-4"
        onInput={refreshPreview}
      >
        <input type="hidden" name="type" value={data.type} />
        <input type="hidden" name="language" value={data.language} />
        <p className={hintClass}>{t("settings:emailTemplates.emptyKeepsDefault")}</p>
        {FIELDS.map((field) => (
          <TemplateField
            key={field}
            field={field}
            label={t(`settings:emailTemplates.fields.${field}`)}
            defaultText={data.defaults[field]}
            value={data.saved?.[field] ?? ""}
            maximum={data.limits[field].maximum}
            error={answer?.intent === "save" ? answer.errors?.[field] : undefined}
            readOnly={locked}
            placeholders={locked ? [] : data.placeholders}
            onInserted={refreshPreview}
          />
        ))}
        {answer?.intent === "save" ? <FormError message={answer.formError} /> : null}
        <SectionStatus answer={answer?.intent === "save" ? answer : undefined} />
        {locked ? null : (
          <div className="flex flex-wrap gap-2">
            <Button name="intent" value="save" pending={save.state !== "idle"}>
              {t("settings:emailTemplates.save")}
            </Button>
          </div>
        )}
      </save.Form>
      <TemplatePreview fetcher={preview} />
      {locked ? null : (
        <div className="mt-4 flex flex-wrap items-start gap-2 border-t pt-4">
          <test.Form method="post" className="flex flex-col gap-1">
            <input type="hidden" name="type" value={data.type} />
            <input type="hidden" name="language" value={data.language} />
            <Button name="intent" value="test" variant="secondary" pending={test.state !== "idle"}>
              {t("settings:emailTemplates.test")}
            </Button>
            <p className={hintClass}>{t("settings:emailTemplates.testNote")}</p>
            <FormError message={(test.data as TemplateAnswer | undefined)?.formError} />
            <SectionStatus answer={test.data as TemplateAnswer | undefined} />
          </test.Form>
          {data.saved ? (
            <reset.Form method="post" id={resetId}>
              <input type="hidden" name="type" value={data.type} />
              <input type="hidden" name="language" value={data.language} />
              <ConfirmDialog
                formId={resetId}
                value="reset"
                trigger={
                  <Button type="button" variant="outline" pending={reset.state !== "idle"}>
                    {t("settings:emailTemplates.reset")}
                  </Button>
                }
                title={t("settings:emailTemplates.reset")}
                description={t("settings:emailTemplates.resetConfirm")}
                actionLabel={t("settings:emailTemplates.reset")}
              />
            </reset.Form>
          ) : null}
          <SectionStatus answer={reset.data as TemplateAnswer | undefined} />
        </div>
      )}
    </Card>
  );
}

function TemplateField(props: {
  field: Field;
  label: string;
  defaultText: string;
  value: string;
  maximum: number;
  error: string | undefined;
  readOnly: boolean;
  placeholders: readonly string[];
  onInserted: () => void;
}) {
  const { t } = useTranslation();
  const id = useId();
  const control = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  // Where the caret was when the field lost focus to a placeholder button.
  function insert(placeholder: string) {
    const field = control.current;
    if (!field) return;
    const at = field.selectionStart ?? field.value.length;
    field.setRangeText(`{{${placeholder}}}`, at, field.selectionEnd ?? at, "end");
    field.focus();
    props.onInserted();
  }
  const hintId = `${id}-default`;
  const errorId = `${id}-error`;
  const common = {
    id,
    name: props.field,
    defaultValue: props.value,
    maxLength: props.maximum,
    readOnly: props.readOnly,
    placeholder: props.defaultText,
    "aria-invalid": props.error ? true : undefined,
    "aria-describedby": props.error ? `${errorId} ${hintId}` : hintId,
    ref: control,
  };
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {props.label}
      </label>
      {MULTILINE.has(props.field) ? (
        <textarea {...common} rows={4} className={controlVariants()} />
      ) : (
        <input {...common} type="text" className={cn(controlVariants())} />
      )}
      {props.error ? (
        <p id={errorId} className={errorTextClass}>
          {props.error}
        </p>
      ) : null}
      <p id={hintId} className={cn(hintClass, "whitespace-pre-line")}>
        {t("settings:emailTemplates.defaultIs", { text: props.defaultText })}
      </p>
      {props.placeholders.length ? (
        <div className="mt-1 flex flex-wrap gap-1">
          {props.placeholders.map((p) => (
            <Button
              key={p}
              type="button"
              variant="outline"
              size="sm"
              className="font-mono"
              aria-label={t("settings:emailTemplates.insert", {
                placeholder: `{{${p}}}`,
                field: props.label,
              })}
              // Keeps the caret where it was in the field.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => insert(p)}
            >
              {`{{${p}}}`}
            </Button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
