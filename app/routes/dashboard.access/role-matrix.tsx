import { Lock } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { Form, Link } from "react-router";
import { permissionLabel } from "../../access/permission-labels";
import { PERMISSIONS } from "../../access/permissions";
import { roleLabel } from "../../access/role-labels";
import { ROLE_DESCRIPTION_MAX, saveMatrixSchema } from "../../access/role-schemas";
import { FormErrors } from "../../components/forms/fields";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { controlVariants } from "../../components/ui/field";
import { linkVariants } from "../../components/ui/link";
import { tableStyles } from "../../components/ui/table";
import { useMedia } from "../../components/use-media";
import { useTranslation } from "../../i18n/use-translation";
import { DeleteRole } from "./delete-role";
import { LocalizedLabelRows } from "./localized-label-fields";
import { MatrixPreview } from "./matrix-preview";
import { RoleCards } from "./role-cards";
import type { RoleRow } from "./types";

const INTENT = "save-matrix";
const FORM_ID = "role-matrix";

function countChanges(form: HTMLFormElement) {
  let n = 0;
  for (const el of form.querySelectorAll<HTMLInputElement>("input[name]")) {
    if (
      el.type === "checkbox"
        ? el.checked !== el.defaultChecked
        : el.type === "text" && el.value !== el.defaultValue
    )
      n++;
  }
  return n;
}

const stickyCell = "sticky left-0 z-10 bg-card shadow-[inset_-1px_0_0_var(--color-border)]";
const stickyHead = "sticky top-0 z-20 bg-muted shadow-[inset_0_-1px_0_var(--color-border)]";

/** Roles the viewer may not change are shown, not sent. */
export function RoleMatrix({ roles, onChanges }: { roles: RoleRow[]; onChanges: (n: number) => void }) {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: saveMatrixSchema, id: FORM_ID, intent: INTENT });
  const saving = useIsPending({ intent: INTENT });
  const [changes, setChanges] = useState(0);
  // Moves with every edit: the preview asks again a moment after the last one.
  const [version, setVersion] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const barRef = useRef<HTMLDivElement>(null);
  const regionRef = useRef<HTMLDivElement>(null);
  const editable = roles.filter((r) => r.editable);
  const rows = fields.roles.getFieldList();
  // A phone shows a column and a half of the table: one card per role there instead.
  const phone = useMedia("(max-width: 767.98px)");

  const recount = useCallback(() => {
    if (!formRef.current) return;
    const n = countChanges(formRef.current);
    setChanges(n);
    onChanges(n);
  }, [onChanges]);
  const edited = useCallback(() => {
    recount();
    setVersion((v) => v + 1);
  }, [recount]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: roles and the layout are the trigger, not inputs
  useEffect(() => recount(), [roles, recount, phone]);

  function onReset() {
    // Saved or discarded, the bar goes with its buttons: the keyboard goes back to the matrix,
    // while the toast announces what was saved.
    if (barRef.current?.contains(document.activeElement)) regionRef.current?.focus();
    // The inputs hold their defaults only once the reset has run.
    setTimeout(recount);
  }

  return (
    <Form
      method="post"
      {...getFormProps(form)}
      ref={formRef}
      onChange={edited}
      onInput={recount}
      onReset={onReset}
      className="flex flex-col gap-3"
    >
      <FormErrors form={form} />
      {phone ? (
        <div
          ref={regionRef}
          role="region"
          aria-label={t("access:matrix.region")}
          // Takes the keyboard back after a save, as the table's region does.
          tabIndex={-1}
          data-testid="matrix-region"
          className="rounded-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        >
          <RoleCards
            roles={roles}
            editable={editable}
            formId={FORM_ID}
            labelErrors={(index) => rows[index]?.getFieldset().label}
            descriptionErrors={(index) => rows[index]?.getFieldset().description}
            translationErrors={(index, language) =>
              rows[index]?.getFieldset().translations.getFieldset()[language]
            }
          />
        </div>
      ) : (
        // Scrolls on its own, both ways, never the page; focusable so the keyboard can scroll it too.
        <div
          ref={regionRef}
          role="region"
          aria-label={t("access:matrix.region")}
          // Focusable for axe's scrollable-region-focusable; containment keeps the table from widening the page.
          tabIndex={0}
          data-testid="matrix-region"
          className="relative max-h-[calc(100dvh-12rem)] min-h-64 max-w-full overflow-auto rounded-md [contain:inline-size] border bg-card focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        >
          <table className="w-full text-sm">
            <caption className="sr-only">{t("access:matrix.caption")}</caption>
            <thead className={tableStyles.head}>
              <tr>
                <th
                  scope="col"
                  className="sticky top-0 left-0 z-30 bg-muted px-3 py-2 text-left shadow-[inset_-1px_-1px_0_var(--color-border)]"
                >
                  {t("access:matrix.permission")}
                </th>
                {roles.map((r) => (
                  <th
                    key={r.id}
                    scope="col"
                    className={cn(stickyHead, "px-3 py-2 text-center align-top font-medium")}
                  >
                    {roleLabel(t, r)}
                    {/* The count opens the people who hold it. */}
                    <Link
                      to={`/dashboard/users?role=${encodeURIComponent(r.name)}`}
                      className={cn(linkVariants({ variant: "quiet" }), "block text-xs font-normal")}
                    >
                      {t("access:matrix.users", { count: r.users })}
                    </Link>
                    {!r.system && r.editable ? <DeleteRole role={r} tab="permissions" /> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {PERMISSIONS.map((p) => (
                <tr key={p.key} className="border-b">
                  <th scope="row" className={`${stickyCell} px-3 py-1 text-left font-normal`}>
                    {permissionLabel(t, p.key)}
                    <code className="block text-xs text-muted-foreground">{p.key}</code>
                  </th>
                  {roles.map((r) => {
                    const index = editable.indexOf(r);
                    return (
                      <td key={r.id} className="px-3 py-1 text-center">
                        {r.all ? (
                          <span title={t("access:matrix.allPermissions")}>
                            <Lock
                              aria-label={t("access:matrix.holdsAll", { role: roleLabel(t, r) })}
                              className="inline size-4 text-muted-foreground"
                            />
                          </span>
                        ) : (
                          <input
                            key={`${r.id}:${r.permissions.includes(p.key)}`}
                            type="checkbox"
                            name={index >= 0 ? `roles[${index}].permissions` : undefined}
                            value={p.key}
                            defaultChecked={r.permissions.includes(p.key)}
                            disabled={index < 0}
                            aria-label={`${roleLabel(t, r)}: ${permissionLabel(t, p.key)}`}
                            className="size-4 accent-primary"
                          />
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
              <tr>
                <th scope="row" className={`${stickyCell} px-3 py-2 text-left font-normal`}>
                  {t("access:matrix.label")}
                </th>
                {roles.map((r) => {
                  const index = editable.indexOf(r);
                  const label = index >= 0 ? rows[index]?.getFieldset().label : undefined;
                  return (
                    <td key={r.id} className="px-3 py-2 align-top">
                      {index < 0 ? (
                        <p className="text-center text-xs text-muted-foreground">
                          {r.all ? t("access:matrix.locked") : t("access:matrix.notYours")}
                        </p>
                      ) : (
                        <>
                          <input type="hidden" name={`roles[${index}].roleId`} value={r.id} />
                          <label className="sr-only" htmlFor={`${FORM_ID}-label-${r.id}`}>
                            {t("access:matrix.labelOf", { name: r.name })}
                          </label>
                          <input
                            key={`${r.id}:${r.label}`}
                            id={`${FORM_ID}-label-${r.id}`}
                            name={`roles[${index}].label`}
                            defaultValue={r.label}
                            maxLength={80}
                            aria-invalid={label?.errors ? true : undefined}
                            aria-describedby={label?.errors ? label.errorId : undefined}
                            className={cn(controlVariants({ size: "sm" }), "w-32")}
                          />
                          {label?.errors ? (
                            <p id={label.errorId} className="mt-1 text-xs text-destructive">
                              {label.errors[0]}
                            </p>
                          ) : null}
                        </>
                      )}
                    </td>
                  );
                })}
              </tr>
              <DescriptionRow
                roles={roles}
                editable={editable}
                errorsOf={(index) => rows[index]?.getFieldset().description}
              />
              <LocalizedLabelRows
                roles={roles}
                editable={editable}
                formId={FORM_ID}
                errorsOf={(index, language) =>
                  rows[index]?.getFieldset().translations.getFieldset()[language]
                }
                cellClass={`${stickyCell} px-3 py-2 text-left font-normal`}
              />
            </tbody>
          </table>
        </div>
      )}
      <div
        ref={barRef}
        className={
          changes
            ? "sticky bottom-2 z-20 flex flex-wrap items-center gap-3 rounded-md border border-warning bg-card p-3 shadow"
            : "sr-only"
        }
      >
        <p role="status" className="text-sm font-medium">
          {changes ? t("access:matrix.unsaved", { count: changes }) : ""}
        </p>
        {changes ? (
          <>
            <Button name="intent" value={INTENT} pending={saving}>
              {t("access:matrix.save")}
            </Button>
            <Button type="button" variant="secondary" onClick={() => formRef.current?.reset()}>
              {t("access:matrix.discard")}
            </Button>
            <MatrixPreview form={formRef} version={version} />
          </>
        ) : null}
      </div>
    </Form>
  );
}

type FieldErrors = { errors?: string[]; errorId: string } | undefined;

/** What each role is for, in the admin's words: shown beside the role wherever one is chosen. */
function DescriptionRow({
  roles,
  editable,
  errorsOf,
}: {
  roles: RoleRow[];
  editable: RoleRow[];
  errorsOf: (index: number) => FieldErrors;
}) {
  const { t } = useTranslation();
  return (
    <tr>
      <th scope="row" className={`${stickyCell} px-3 py-2 text-left font-normal`}>
        {t("access:matrix.description")}
      </th>
      {roles.map((r) => {
        const index = editable.indexOf(r);
        const errors = index >= 0 ? errorsOf(index) : undefined;
        return (
          <td key={r.id} className="px-3 py-2 align-top">
            {index < 0 ? (
              <p className="w-32 text-xs text-muted-foreground">{r.description}</p>
            ) : (
              <>
                <label className="sr-only" htmlFor={`${FORM_ID}-description-${r.id}`}>
                  {t("access:matrix.descriptionOf", { name: r.name })}
                </label>
                <input
                  key={`${r.id}:${r.description}`}
                  id={`${FORM_ID}-description-${r.id}`}
                  name={`roles[${index}].description`}
                  defaultValue={r.description}
                  maxLength={ROLE_DESCRIPTION_MAX}
                  placeholder={t("access:matrix.descriptionPlaceholder")}
                  aria-invalid={errors?.errors ? true : undefined}
                  aria-describedby={errors?.errors ? errors.errorId : undefined}
                  className={cn(controlVariants({ size: "sm" }), "w-32")}
                />
                {errors?.errors ? (
                  <p id={errors.errorId} className="mt-1 text-xs text-destructive">
                    {errors.errors[0]}
                  </p>
                ) : null}
              </>
            )}
          </td>
        );
      })}
    </tr>
  );
}
