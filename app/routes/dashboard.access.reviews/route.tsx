import { Link } from "react-router";
import { roleLabel } from "../../access/role-labels";
import { requirePermission } from "../../auth/guard.server";
import { useFormat } from "../../components/format";
import { pageTitle } from "../../components/page-title";
import { Card } from "../../components/ui/card";
import {
  Table,
  TableBody,
  TableCell,
  TableEmpty,
  TableHead,
  TableHeader,
  TableRow,
} from "../../components/ui/table";
import { passRetryAfter } from "../../http/responses";
import { useTranslation } from "../../i18n/use-translation";
import { reviewsPageData, runReviewIntent } from "../../tasks/access-review-page.server";
import type { Route } from "./+types/route";
import { OpenReview } from "./open-review";

// Access reviews: open one over a role's or a team's grants; the newest, with how far each is.

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "roles.manage");
  return reviewsPageData();
}

export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runReviewIntent(args);

export default function AccessReviews({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const { reviews, roles, teams } = loaderData;
  return (
    <div className="flex min-w-0 flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("access:reviews.title")}</h1>
      <p className="max-w-prose text-sm text-muted-foreground">{t("access:reviews.intro")}</p>
      <OpenReview roles={roles} teams={teams} />
      <Card title={t("access:reviews.list")}>
        <Table caption={t("access:reviews.list")}>
          <TableHead>
            <TableHeader>{t("access:reviews.name")}</TableHeader>
            <TableHeader>{t("access:reviews.covers")}</TableHeader>
            <TableHeader>{t("access:reviews.due")}</TableHeader>
            <TableHeader>{t("access:reviews.state")}</TableHeader>
            <TableHeader>{t("access:reviews.progress")}</TableHeader>
          </TableHead>
          <TableBody>
            {reviews.length === 0 ? (
              <TableEmpty colSpan={5}>{t("access:reviews.none")}</TableEmpty>
            ) : (
              reviews.map((r) => {
                const role = r.role ? roles.find((x) => x.name === r.role!.name) : undefined;
                return (
                  <TableRow key={r.id}>
                    <TableCell>
                      <Link
                        className="font-medium underline underline-offset-2"
                        to={`/dashboard/access/reviews/${r.id}`}
                      >
                        {r.name}
                      </Link>
                    </TableCell>
                    <TableCell>
                      {[role ? roleLabel(t, role) : r.role?.label, r.team?.name].filter(Boolean).join(" · ")}
                    </TableCell>
                    <TableCell>{formatDateTime(r.dueAt)}</TableCell>
                    <TableCell>{t(`access:reviews.status.${r.status}`)}</TableCell>
                    <TableCell>
                      {t("access:reviews.decidedOf", {
                        decided: r.counts.items - r.counts.undecided,
                        count: r.counts.items,
                      })}
                    </TableCell>
                  </TableRow>
                );
              })
            )}
          </TableBody>
        </Table>
      </Card>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "accessReviews");
