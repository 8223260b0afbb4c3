import { auditRowsFor } from "../../access/audit-token-names.server";
import { mayOnUser, reachOf } from "../../access/reach.server";
import { roleGrants } from "../../access/role-cache.server";
import { roleNamesIn } from "../../access/role-labels";
import { auditActionText } from "../../audit/action-text";
import { AUDIT_ACTIONS } from "../../audit/actions";
import { PERIOD_NAMES } from "../../audit/periods";
import { listAudit, parseAuditQuery } from "../../audit/query.server";
import { auditPerson, describeAuditRows } from "../../audit/view.server";
import { requireSomewhere } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { Field } from "../../components/ui/field";
import { type FilterChip, FilterChips, FilterForm } from "../../components/ui/list-filters";
import { Pagination } from "../../components/ui/pagination";
import { PhoneFilters } from "../../components/ui/phone-filters";
import { Select } from "../../components/ui/select";
import { SavedViewsControl } from "../../components/views/saved-views-control";
import { pageRefusal } from "../../http/form.server";
import { getI18n, getT } from "../../i18n/i18n.server";
import { sayIssue } from "../../i18n/message";
import { useTranslation } from "../../i18n/use-translation";
import { viewsForList } from "../../views/saved-views.server";
import type { Route } from "./+types/route";
import { AuditEntries } from "./audit-entries";
import { ExportAuditButton } from "./export-audit-button";

export async function loader(args: Route.LoaderArgs) {
  // Held within teams, the log shows the rows about them and their people (decision 044).
  const viewer = await requireSomewhere(args, "log.read");
  const parsed = parseAuditQuery(new URL(args.request.url).searchParams);
  if (!parsed.ok) {
    const t = getT(args.context);
    const values = { field: parsed.field, problem: sayIssue(t, parsed.issue) };
    throw pageRefusal(t, { key: "audit.badFilter", values }, 400);
  }
  const [{ rows, start, prev, next }, savedViews, found, grants] = await Promise.all([
    listAudit(parsed.value, reachOf(viewer, "log.read")),
    viewsForList(viewer, "audit", args.url),
    auditPerson(parsed.value.person),
    roleGrants(),
  ]);
  // Their current email is user.read material: without it the chip says the name the log shows.
  // Someone out of a team reader's reach is not named at all (as an unknown id).
  const known = found && (await mayOnUser(viewer, "log.read", found.id)) ? found : null;
  const person =
    known && !(await mayOnUser(viewer, "user.read", known.id)) ? { ...known, email: null } : known;
  const i18n = getI18n(args.context);
  return {
    query: parsed.value,
    person,
    savedViews,
    start,
    prev,
    next,
    rows: await describeAuditRows(
      await auditRowsFor(viewer, rows),
      i18n,
      roleNamesIn(i18n.t, grants.values()),
    ),
  };
}

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { rows, start, prev, next, query, savedViews, person } = loaderData;
  const chip = (name: "actor" | "target", value: string) =>
    value ? { name, label: t(`audit:filter.${name}Chip`), value } : null;
  const day = (name: "from" | "to", value: string) =>
    value ? { name, label: t(`audit:filter.${name}`), value } : null;
  const chips: FilterChip[] = [
    query.person
      ? {
          name: "person",
          label: t("audit:filter.personChip"),
          // A deleted person keeps their id in the rows, so the chip names what it filters by.
          value: person ? (person.email ? `${person.name} (${person.email})` : person.name) : query.person,
        }
      : null,
    query.within
      ? { name: "within", label: t("audit:filter.within"), value: t(`audit:filter.period.${query.within}`) }
      : null,
    chip("actor", query.actor),
    query.action
      ? { name: "action", label: t("audit:filter.action"), value: auditActionText(t, query.action) }
      : null,
    chip("target", query.target),
    day("from", query.from),
    day("to", query.to),
  ].filter((c) => c !== null);

  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("audit:title")}</h1>
      <SavedViewsControl saved={savedViews} />
      <div className="flex flex-col gap-3">
        <PhoneFilters applied={chips.length}>
          <FilterForm
            label={t("audit:filter.label")}
            applyLabel={t("audit:filter.submit")}
            applied={{
              person: query.person,
              within: query.within,
              actor: query.actor,
              action: query.action,
              target: query.target,
              from: query.from,
              to: query.to,
            }}
          >
            <Field
              label={t("audit:filter.actor")}
              name="actor"
              type="text"
              defaultValue={query.actor}
              className="w-full sm:w-56"
            />
            <Select label={t("audit:filter.action")} name="action" defaultValue={query.action}>
              <option value="">{t("audit:filter.anyAction")}</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {auditActionText(t, a)}
                </option>
              ))}
            </Select>
            <Field
              label={t("audit:filter.target")}
              name="target"
              type="text"
              defaultValue={query.target}
              className="w-full sm:w-56"
            />
            <Select label={t("audit:filter.within")} name="within" defaultValue={query.within}>
              <option value="">{t("audit:filter.period.any")}</option>
              {PERIOD_NAMES.map((p) => (
                <option key={p} value={p}>
                  {t(`audit:filter.period.${p}`)}
                </option>
              ))}
            </Select>
            <Field label={t("audit:filter.from")} name="from" type="date" defaultValue={query.from} />
            <Field label={t("audit:filter.to")} name="to" type="date" defaultValue={query.to} />
            <input type="hidden" name="person" defaultValue={query.person} />
            <input type="hidden" name="size" value={query.size} />
            <ExportAuditButton />
            <ExportAuditButton format="jsonl" />
          </FilterForm>
        </PhoneFilters>
        <FilterChips chips={chips} />
      </div>

      <AuditEntries rows={rows} />
      <Pagination
        label={t("audit:pages.label")}
        noun={t("audit:pages.noun")}
        start={start}
        shown={rows.length}
        prev={prev}
        next={next}
        prevLabel={t("audit:pages.newer")}
        nextLabel={t("audit:pages.older")}
      />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "auditLog");
