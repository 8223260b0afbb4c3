import { useEffect, useId, useRef, useState } from "react";
import { ChangePreview } from "../../components/access/change-preview";
import { useTranslation } from "../../i18n/use-translation";
import { ROLE_CHANGE_MODES, type RoleChangeMode, rolesAfter } from "../../users/role-change";

type Option = { id: string; label: string };

/**
 * The fields of the bulk bar's "Change roles": how (add, remove, replace) and which roles, and
 * before confirming, how many of those ticked would be left with no role and so without access.
 * For "all matching" the page does not hold everyone's roles: the result says how many instead.
 */
export function ChangeRolesFields({
  form,
  roles,
  chosen,
}: {
  form: string;
  roles: Option[];
  /** The people ticked on this page, with their roles; null for "all matching". */
  chosen: { roleIds: string[] }[] | null;
}) {
  const { t } = useTranslation();
  const id = useId();
  const [mode, setMode] = useState<RoleChangeMode>("add");
  const [picked, setPicked] = useState<string[]>([]);
  const left = chosen
    ? chosen.filter((c) => rolesAfter(c.roleIds, { mode, roleIds: picked }).length === 0).length
    : null;
  // Adding or removing nothing is refused before it is sent: the dialog stays open on the roles.
  const first = useRef<HTMLInputElement>(null);
  const missing = mode !== "replace" && picked.length === 0;
  const missingText = t("messages:users.bulk.chooseRole");
  useEffect(() => first.current?.setCustomValidity(missing ? missingText : ""), [missing, missingText]);
  const warn = mode !== "add" && (left === null ? mode === "replace" && picked.length === 0 : left > 0);
  // The bulk bar's form, which the dialog's fields belong to (`form=`): the preview reads it whole.
  const formRef = useRef<HTMLFormElement | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    formRef.current = document.getElementById(form) as HTMLFormElement | null;
    if (mode === "replace" || picked.length) setVersion((v) => v + 1);
  }, [form, mode, picked]);
  return (
    <div className="mt-4 flex flex-col gap-4">
      <fieldset>
        <legend className="text-sm font-medium">{t("users:bulk.changeRoles.how")}</legend>
        <div className="mt-2 flex flex-col gap-1">
          {ROLE_CHANGE_MODES.map((m) => (
            <label key={m} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="mode"
                value={m}
                form={form}
                checked={mode === m}
                onChange={() => setMode(m)}
                className="size-4 accent-primary"
              />
              {t(`users:bulk.changeRoles.mode.${m}`)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="text-sm font-medium">{t("users:bulk.changeRoles.roles")}</legend>
        <div className="mt-2 grid gap-1 sm:grid-cols-2">
          {roles.map((r, i) => (
            <label key={r.id} className="flex items-center gap-2 text-sm">
              <input
                ref={i === 0 ? first : undefined}
                type="checkbox"
                name="roleIds"
                value={r.id}
                form={form}
                checked={picked.includes(r.id)}
                onChange={(e) =>
                  setPicked((list) => (e.target.checked ? [...list, r.id] : list.filter((x) => x !== r.id)))
                }
                className="size-4 accent-primary"
              />
              {r.label}
            </label>
          ))}
        </div>
      </fieldset>
      <p
        id={`${id}-left`}
        role="status"
        className={warn ? "text-sm font-medium text-destructive" : "sr-only"}
      >
        {warn
          ? left === null
            ? t("users:bulk.changeRoles.noneLeftMatching")
            : t("users:bulk.changeRoles.leftWithout", { count: left })
          : ""}
      </p>
      <ChangePreview
        form={formRef}
        version={version}
        intent="preview-bulk-roles"
        testId="bulk-roles-preview"
      />
    </div>
  );
}
