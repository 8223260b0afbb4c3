import { useEffect } from "react";
import { Form, Link, useSearchParams } from "react-router";
import { z } from "zod";
import { can } from "../access/check";
import { reachOf } from "../access/reach.server";
import { requireSomewhere } from "../auth/guard.server";
import { handleIntents } from "../auth/intents.server";
import { useFormat } from "../components/format";
import { FormErrors, TextField } from "../components/forms/fields";
import { getFormProps, useAppForm } from "../components/forms/use-app-form";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card } from "../components/ui/card";
import { linkVariants } from "../components/ui/link";
import { Pagination } from "../components/ui/pagination";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../components/ui/table";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { getT } from "../i18n/i18n.server";
import { useTranslation } from "../i18n/use-translation";
import { teamSchema } from "../teams/team-schemas";
import { createTeam, listTeams } from "../teams/teams.server";
import type { Route } from "./+types/dashboard.teams";

// The list's keyset cursors (db/keyset.ts); a bad one opens the first page.
const pageRequest = z.object({
  after: z.string().max(2000).optional().catch(undefined),
  before: z.string().max(2000).optional().catch(undefined),
});

export async function loader(args: Route.LoaderArgs) {
  // Held within teams, the list is those teams (decision 044); creating a team stays global.
  const user = await requireSomewhere(args, "team.read");
  const page = pageRequest.parse(Object.fromEntries(new URL(args.request.url).searchParams));
  return { ...(await listTeams(page, reachOf(user, "team.read"))), mayWrite: can(user, "team.write") };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      create: {
        schema: teamSchema,
        run: async ({ actor, input }) => {
          const id = await createTeam(actor, input, args);
          return redirectWithToast(`/dashboard/teams/${id}`, {
            kind: "success",
            message: t("teams:toast.created", { name: input.name }),
          });
        },
      },
    },
    { permission: "team.write" },
  );
};

export default function Teams({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatNumber } = useFormat();
  const { teams, page, total, mayWrite } = loaderData;
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("teams:list.title")}</h1>
      <Table caption={t("teams:list.title")}>
        <TableHead>
          <TableHeader>{t("teams:column.name")}</TableHeader>
          <TableHeader>{t("teams:column.description")}</TableHeader>
          <TableHeader align="right">{t("teams:column.members")}</TableHeader>
        </TableHead>
        <TableBody>
          {teams.length === 0 ? (
            <TableEmpty colSpan={3}>
              {mayWrite ? t("teams:list.emptyCreate") : t("teams:list.empty")}
            </TableEmpty>
          ) : (
            teams.map((team) => (
              <TableRow key={team.id}>
                <TableCell>
                  <Link to={`/dashboard/teams/${team.id}`} className={linkVariants({ variant: "quiet" })}>
                    {team.name}
                  </Link>
                </TableCell>
                <TableCell>{team.description || "—"}</TableCell>
                <TableCell align="right">{formatNumber(team.members)}</TableCell>
              </TableRow>
            ))
          )}
        </TableBody>
      </Table>
      {page.prev || page.next ? (
        <Pagination
          label={t("teams:list.pages")}
          noun="teams"
          range={t("teams:list.range", {
            from: formatNumber(page.start),
            to: formatNumber(page.start + teams.length - 1),
            total: formatNumber(total),
            count: total,
          })}
          prevLabel={t("teams:list.previous")}
          nextLabel={t("teams:list.next")}
          start={page.start}
          shown={teams.length}
          total={{ count: total, capped: false }}
          prev={page.prev}
          next={page.next}
        />
      ) : null}
      {mayWrite ? <CreateTeam /> : null}
    </div>
  );
}

function CreateTeam() {
  const { t } = useTranslation();
  const [form, fields] = useAppForm({ schema: teamSchema, id: "create-team", intent: "create" });
  const creating = useIsPending({ intent: "create" });
  // The command palette's "Create a team" opens this page at `?new=team`, ready to type.
  const opening = useSearchParams()[0].get("new") === "team";
  const nameId = fields.name.id;
  useEffect(() => {
    if (opening) document.getElementById(nameId)?.focus();
  }, [opening, nameId]);
  return (
    <Card title={t("teams:create.title")}>
      <Form method="post" className="grid gap-3 sm:grid-cols-2" {...getFormProps(form)}>
        <TextField meta={fields.name} label={t("teams:field.name")} />
        <TextField meta={fields.description} label={t("teams:field.description")} />
        <div className="sm:col-span-2">
          <FormErrors form={form} />
        </div>
        <div className="sm:col-span-2">
          <Button name="intent" value="create" pending={creating}>
            {t("teams:create.button")}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "teams");
