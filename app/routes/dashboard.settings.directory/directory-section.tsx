import { useFetcher } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { useFormat } from "../../components/format";
import { SelectField, TextField } from "../../components/forms/fields";
import { SecretReveal } from "../../components/secret-reveal";
import { ConfirmDialog } from "../../components/ui/alert-dialog";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { controlVariants, labelClass } from "../../components/ui/field";
import { directorySchema, updateDirectorySchema } from "../../directory/directory-schemas";
import { useTranslation } from "../../i18n/use-translation";
import { RowRefusal, SectionStatus, useSettingsForm } from "../dashboard.settings/use-settings-form";
import type { action } from "./route";

// Settings → Directory (settings.manage and user.write; docs/decisions/033-scim-directories.md):
// the directories that provision accounts over SCIM, each with its token (shown once), domains,
// the role new people get and what its groups give.

export type DirectoryItem = {
  id: string;
  name: string;
  domains: string[];
  defaultRoleId: string | null;
  groupRoles: { group: string; roleId: string; team: boolean }[];
  sendPasswordLink: boolean;
  tokenHint: string | null;
  lastUsedAt: string | null;
  managedCount: number;
};
type Role = { id: string; name: string; label: string };

function TokenOnce({ token }: { token: string | undefined }) {
  const { t } = useTranslation();
  return (
    <SecretReveal
      secret={token}
      title={t("settings:directory.revealTitle")}
      note={t("settings:directory.tokenOnce")}
      testId="directory-token"
    />
  );
}

export function DirectorySection({
  directories,
  roles,
  scimUrl,
}: {
  directories: DirectoryItem[];
  roles: Role[];
  scimUrl: string;
}) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted-foreground">
        {t("settings:directory.intro")} <code className="break-all">{scimUrl}</code>
      </p>
      {directories.length === 0 ? <EmptyState>{t("settings:directory.none")}</EmptyState> : null}
      {directories.map((d) => (
        <Card key={`${d.id}:${d.name}:${d.groupRoles.length}`} title={d.name}>
          <DirectoryStatus directory={d} />
          <DirectoryForm directory={d} roles={roles} />
          <TokenActions directory={d} />
        </Card>
      ))}
      <Card title={t("settings:directory.addTitle")}>
        <DirectoryForm roles={roles} />
      </Card>
    </div>
  );
}

function DirectoryStatus({ directory: d }: { directory: DirectoryItem }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  return (
    <div className="mb-3 flex flex-wrap items-center gap-2 text-sm">
      {d.tokenHint ? (
        <Badge variant="success">{t("settings:directory.tokenActive", { hint: `${d.tokenHint}…` })}</Badge>
      ) : (
        <Badge variant="destructive">{t("settings:directory.tokenRevoked")}</Badge>
      )}
      <span className="text-muted-foreground">
        {t("settings:directory.managed", { count: d.managedCount })} ·{" "}
        {d.lastUsedAt
          ? t("settings:directory.lastUsed", { when: formatDateTime(d.lastUsedAt) })
          : t("settings:directory.neverUsed")}
      </span>
    </div>
  );
}

function DirectoryForm({ directory, roles }: { directory?: DirectoryItem; roles: Role[] }) {
  const { t } = useTranslation();
  const intent = directory ? "update-directory" : "create-directory";
  const s = useSettingsForm(intent, directory ? updateDirectorySchema : directorySchema, {
    fetcher: useFetcher<typeof action>(),
    id: directory ? `directory-${directory.id}` : "directory-new",
    defaultValue: directory
      ? {
          name: directory.name,
          domains: directory.domains.join(", "),
          defaultRoleId: directory.defaultRoleId ?? "",
          sendPasswordLink: directory.sendPasswordLink,
        }
      : { defaultRoleId: roles.find((r) => r.name === "user")?.id ?? "" },
  });
  const answer = s.fetcher.data;
  const f = s.fields as Record<string, (typeof s.fields)[keyof typeof s.fields]>;
  // The saved mappings and one empty row to add another (a row left without a group is dropped).
  const rows = [...(directory?.groupRoles ?? []), { group: "", roleId: "", team: false }];
  const prefix = directory ? `dir-${directory.id}` : "dir-new";
  return (
    <s.fetcher.Form method="post" className="flex flex-col gap-3" {...s.formProps}>
      <input type="hidden" name="intent" value={intent} />
      {directory ? <input type="hidden" name="id" value={directory.id} /> : null}
      <TextField meta={f.name!} label={t("settings:directory.name")} autoComplete="off" />
      <TextField
        meta={f.domains!}
        label={t("settings:directory.domains")}
        description={t("settings:directory.domainsHint")}
        autoComplete="off"
      />
      <SelectField meta={f.defaultRoleId!} label={t("settings:directory.defaultRole")}>
        <option value="">{t("settings:directory.noRole")}</option>
        {roles.map((r) => (
          <option key={r.id} value={r.id}>
            {roleLabel(t, r)}
          </option>
        ))}
      </SelectField>
      <fieldset className="flex flex-col gap-2">
        <legend className={labelClass}>{t("settings:directory.groups")}</legend>
        <p className="text-sm text-muted-foreground">{t("settings:directory.groupsHint")}</p>
        {rows.map((row, i) => (
          <div
            key={`${prefix}-${row.group}-${row.roleId}`}
            className="grid items-end gap-2 sm:grid-cols-[1fr_1fr_auto]"
          >
            <div className="flex flex-col gap-1">
              <label className={labelClass} htmlFor={`${prefix}-group-${i}`}>
                {t("settings:directory.groupName", { n: i + 1 })}
              </label>
              <input
                id={`${prefix}-group-${i}`}
                name={`groupRoles[${i}].group`}
                defaultValue={row.group}
                maxLength={120}
                autoComplete="off"
                className={controlVariants()}
              />
            </div>
            <div className="flex flex-col gap-1">
              <label className={labelClass} htmlFor={`${prefix}-role-${i}`}>
                {t("settings:directory.groupRole", { n: i + 1 })}
              </label>
              <select
                id={`${prefix}-role-${i}`}
                name={`groupRoles[${i}].roleId`}
                defaultValue={row.roleId}
                className={controlVariants()}
              >
                <option value="">{t("settings:directory.chooseRole")}</option>
                {roles.map((r) => (
                  <option key={r.id} value={r.id}>
                    {roleLabel(t, r)}
                  </option>
                ))}
              </select>
            </div>
            <label className="inline-flex h-10 items-center gap-2 text-sm">
              <input
                type="checkbox"
                name={`groupRoles[${i}].team`}
                defaultChecked={row.team}
                className="size-4 accent-primary"
              />
              {t("settings:directory.asTeam")}
            </label>
          </div>
        ))}
      </fieldset>
      <label className="inline-flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          name="sendPasswordLink"
          defaultChecked={directory?.sendPasswordLink ?? false}
          className="size-4 accent-primary"
        />
        {t("settings:directory.sendPasswordLink")}
      </label>
      {s.errors}
      <div>
        <Button pending={s.pending}>
          {directory ? t("settings:directory.save") : t("settings:directory.add")}
        </Button>
      </div>
      {s.status}
      <TokenOnce token={answer?.ok && answer.intent === "create-directory" ? answer.token : undefined} />
    </s.fetcher.Form>
  );
}

function TokenActions({ directory: d }: { directory: DirectoryItem }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<typeof action>();
  const answer = fetcher.data;
  const busy = fetcher.state !== "idle";
  const act = (intent: string) => fetcher.submit({ intent, id: d.id }, { method: "post" });
  return (
    <div className="mt-4 flex flex-col gap-2 border-t pt-3">
      <div className="flex flex-wrap gap-2">
        <ConfirmDialog
          trigger={
            <Button type="button" variant="secondary" size="sm" disabled={busy}>
              {t("settings:directory.rotate")}
            </Button>
          }
          title={t("settings:directory.rotateTitle", { name: d.name })}
          description={t("settings:directory.rotateDescription")}
          actionLabel={t("settings:directory.rotate")}
          variant="default"
          onConfirm={() => act("rotate-directory-token")}
        />
        {d.tokenHint ? (
          <ConfirmDialog
            trigger={
              <Button type="button" variant="destructive" size="sm" disabled={busy}>
                {t("settings:directory.revoke")}
              </Button>
            }
            title={t("settings:directory.revokeTitle", { name: d.name })}
            description={t("settings:directory.revokeDescription")}
            actionLabel={t("settings:directory.revoke")}
            onConfirm={() => act("revoke-directory-token")}
          />
        ) : null}
        <ConfirmDialog
          trigger={
            <Button type="button" variant="destructive" size="sm" disabled={busy}>
              {t("settings:directory.remove")}
            </Button>
          }
          title={t("settings:directory.removeTitle", { name: d.name })}
          description={t("settings:directory.removeDescription", { count: d.managedCount })}
          actionLabel={t("settings:directory.remove")}
          confirmText={d.name}
          confirmLabel={t("settings:directory.typeName")}
          onConfirm={() => act("delete-directory")}
        />
      </div>
      <SectionStatus answer={answer} />
      <RowRefusal answer={answer} />
      <TokenOnce
        token={answer?.ok && answer.intent === "rotate-directory-token" ? answer.token : undefined}
      />
    </div>
  );
}
