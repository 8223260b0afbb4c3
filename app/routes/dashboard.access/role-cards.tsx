import { Lock } from "lucide-react";
import { permissionLabel } from "../../access/permission-labels";
import { PERMISSIONS } from "../../access/permissions";
import { roleLabel } from "../../access/role-labels";
import { ROLE_DESCRIPTION_MAX } from "../../access/role-schemas";
import { cardClass } from "../../components/ui/card";
import { cn } from "../../components/ui/cn";
import { controlVariants, labelClass } from "../../components/ui/field";
import { useTranslation } from "../../i18n/use-translation";
import { DeleteRole } from "./delete-role";
import { TRANSLATED_LANGUAGES, translatedLabelName } from "./localized-label-fields";
import type { RoleRow } from "./types";

type Errors = { id: string; errors?: string[] } | undefined;

/**
 * The role matrix on a phone: one card per role, its permissions as a list of labelled checkboxes,
 * then its label and translations. The same inputs, under the same names, as the table's columns,
 * in the same form: a phone showed a column and a half of the table.
 */
export function RoleCards({
  roles,
  editable,
  formId,
  labelErrors,
  descriptionErrors,
  translationErrors,
}: {
  roles: RoleRow[];
  editable: RoleRow[];
  formId: string;
  labelErrors: (index: number) => Errors;
  descriptionErrors: (index: number) => Errors;
  translationErrors: (index: number, language: string) => Errors;
}) {
  const { t } = useTranslation();
  return (
    <ul className="flex flex-col gap-3" aria-label={t("access:matrix.caption")} data-testid="role-cards">
      {roles.map((r) => {
        const index = editable.indexOf(r);
        const name = roleLabel(t, r);
        const label = index >= 0 ? labelErrors(index) : undefined;
        return (
          <li key={r.id} className={cn(cardClass, "p-4")}>
            <fieldset>
              <legend className="font-semibold">{name}</legend>
              <p className="text-xs text-muted-foreground">{t("access:matrix.users", { count: r.users })}</p>
              {!r.system && r.editable ? <DeleteRole role={r} tab="permissions" /> : null}
              {r.all ? (
                <p className="mt-2 flex items-center gap-2 text-sm text-muted-foreground">
                  <Lock aria-hidden className="size-4" />
                  {t("access:matrix.holdsAll", { role: name })}
                </p>
              ) : (
                <ul className="mt-2 flex flex-col gap-2">
                  {PERMISSIONS.map((p) => (
                    <li key={p.key}>
                      <label className="flex items-start gap-2 text-sm">
                        <input
                          key={`${r.id}:${r.permissions.includes(p.key)}`}
                          type="checkbox"
                          name={index >= 0 ? `roles[${index}].permissions` : undefined}
                          value={p.key}
                          defaultChecked={r.permissions.includes(p.key)}
                          disabled={index < 0}
                          // As the table names it; the visible words are part of the name.
                          aria-label={`${name}: ${permissionLabel(t, p.key)}`}
                          className="mt-0.5 size-4 accent-primary"
                        />
                        <span>
                          {permissionLabel(t, p.key)}
                          <code className="block text-xs text-muted-foreground">{p.key}</code>
                        </span>
                      </label>
                    </li>
                  ))}
                </ul>
              )}
              {index < 0 ? (
                <p className="mt-2 text-xs text-muted-foreground">
                  {r.all ? t("access:matrix.locked") : t("access:matrix.notYours")}
                </p>
              ) : (
                <div className="mt-3 flex flex-col gap-3">
                  <input type="hidden" name={`roles[${index}].roleId`} value={r.id} />
                  <TextInput
                    id={`${formId}-label-${r.id}`}
                    label={t("access:matrix.labelOf", { name: r.name })}
                    name={`roles[${index}].label`}
                    value={r.label}
                    errors={label}
                  />
                  <TextInput
                    id={`${formId}-description-${r.id}`}
                    label={t("access:matrix.descriptionOf", { name: r.name })}
                    name={`roles[${index}].description`}
                    value={r.description}
                    errors={descriptionErrors(index)}
                    max={ROLE_DESCRIPTION_MAX}
                  />
                  {TRANSLATED_LANGUAGES.map((language) => (
                    <TextInput
                      key={language}
                      id={`${formId}-${language}-${r.id}`}
                      label={t("access:labels.ofRole", {
                        label: translatedLabelName(t, language),
                        name: r.name,
                      })}
                      name={`roles[${index}].translations.${language}`}
                      value={r.translations[language] ?? ""}
                      errors={translationErrors(index, language)}
                    />
                  ))}
                </div>
              )}
            </fieldset>
          </li>
        );
      })}
    </ul>
  );
}

function TextInput({
  id,
  label,
  name,
  value,
  errors,
  max = 80,
}: {
  id: string;
  label: string;
  name: string;
  value: string;
  errors: Errors;
  max?: number;
}) {
  return (
    <div>
      <label className={labelClass} htmlFor={id}>
        {label}
      </label>
      <input
        key={`${name}:${value}`}
        id={id}
        name={name}
        defaultValue={value}
        maxLength={max}
        autoComplete="off"
        aria-invalid={errors?.errors ? true : undefined}
        aria-describedby={errors?.errors ? errors.id : undefined}
        className={cn(controlVariants({ size: "sm" }), "w-full")}
      />
      {errors?.errors ? (
        <p id={errors.id} className="mt-1 text-xs text-destructive">
          {errors.errors[0]}
        </p>
      ) : null}
    </div>
  );
}
