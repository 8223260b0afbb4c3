import { X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { FormErrors, SelectField } from "../../components/forms/fields";
import { FormDialog } from "../../components/forms/form-dialog";
import { getFormProps, useAppForm } from "../../components/forms/use-app-form";
import { useIsPending } from "../../components/forms/use-is-pending";
import { teamRoleText } from "../../components/teams/team-role";
import { Button } from "../../components/ui/button";
import { type ComboboxOption, SearchCombobox } from "../../components/ui/search-combobox";
import { useTranslation } from "../../i18n/use-translation";
import { TEAM_ROLES } from "../../teams/team-roles";
import { addMembersSchema, MAX_ADDED_AT_ONCE, type MemberCandidate } from "../../teams/team-schemas";

type Found = { q: string; candidates: MemberCandidate[] };

/**
 * Several people at once: each one picked from the search joins the list above it (the search keeps
 * the focus for the next), then one Add, two Tabs away. The search's own route
 * (api.teams.$id.candidates.ts) checks the permission and caps each answer.
 */
export function AddMembersDialog({ teamId, teamName }: { teamId: string; teamName: string }) {
  const { t } = useTranslation();
  const trigger = <Button type="button">{t("teams:add.button")}</Button>;
  return (
    <FormDialog
      intent="add-members"
      trigger={trigger}
      title={t("teams:add.title", { team: teamName })}
      description={t("teams:add.help")}
    >
      <AddMembersForm teamId={teamId} />
    </FormDialog>
  );
}

function AddMembersForm({ teamId }: { teamId: string }) {
  const { t } = useTranslation();
  const search = useFetcher<Found>();
  const [query, setQuery] = useState("");
  const [asked, setAsked] = useState("");
  const [picked, setPicked] = useState<MemberCandidate[]>([]);
  const [form, fields] = useAppForm({
    schema: addMembersSchema,
    id: "add-members",
    intent: "add-members",
    defaultValue: { teamRole: "member" },
  });
  const adding = useIsPending({ intent: "add-members" });
  const combo = useRef<HTMLDivElement>(null);
  const pickedHeading = useId();
  const load = search.load;

  useEffect(() => {
    const text = query.trim();
    if (!text) return;
    const timer = setTimeout(() => {
      setAsked(text);
      load(`/api/teams/${teamId}/candidates?q=${encodeURIComponent(text)}`);
    }, 200);
    return () => clearTimeout(timer);
  }, [query, teamId, load]);

  const chosen = new Set(picked.map((p) => p.id));
  const found = search.data && search.data.q === asked ? search.data.candidates : [];
  const options: ComboboxOption[] = query.trim()
    ? found.filter((c) => !chosen.has(c.id)).map((c) => ({ id: c.id, label: c.name, description: c.email }))
    : [];
  const searching = query.trim() !== "" && (search.state !== "idle" || asked !== query.trim());
  const full = picked.length >= MAX_ADDED_AT_ONCE;

  function pick(option: ComboboxOption) {
    const person = found.find((c) => c.id === option.id);
    if (person && !full) setPicked((list) => [...list, person]);
    setQuery("");
  }

  function unpick(person: MemberCandidate) {
    setPicked((list) => list.filter((p) => p.id !== person.id));
    // The button just pressed is gone: the search takes the focus, not the page.
    combo.current?.querySelector("input")?.focus();
  }

  return (
    <Form method="post" className="flex flex-col gap-4" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="add-members" />
      <div>
        <h3 className="text-sm font-medium" id={pickedHeading}>
          {t("teams:add.picked", { count: picked.length })}
        </h3>
        {picked.length ? (
          <ul aria-labelledby={pickedHeading} className="mt-2 flex flex-wrap gap-2">
            {picked.map((p) => (
              <li
                key={p.id}
                className="inline-flex items-center gap-1 rounded-full border bg-muted py-0.5 pr-1 pl-3 text-sm"
              >
                <input type="hidden" name={fields.userIds.name} value={p.id} />
                {p.name}
                <Button
                  type="button"
                  variant="ghost"
                  size="xs"
                  onClick={() => unpick(p)}
                  aria-label={t("teams:add.unpick", { name: p.name })}
                >
                  <X aria-hidden className="size-3.5" />
                </Button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <div ref={combo}>
        <SearchCombobox
          label={t("teams:add.find")}
          query={query}
          onQueryChange={setQuery}
          options={options}
          searching={searching}
          onSelect={pick}
          disabled={full}
        />
      </div>
      <SelectField meta={fields.teamRole} label={t("teams:column.teamRole")}>
        {TEAM_ROLES.map((r) => (
          <option key={r} value={r}>
            {teamRoleText(t, r)}
          </option>
        ))}
      </SelectField>
      <FormErrors form={form} />
      {fields.userIds.errors?.length ? (
        <p className="text-sm text-destructive" role="alert">
          {fields.userIds.errors[0]}
        </p>
      ) : null}
      <div className="flex justify-end">
        <Button pending={adding}>{t("teams:add.submit", { count: picked.length })}</Button>
      </div>
    </Form>
  );
}
