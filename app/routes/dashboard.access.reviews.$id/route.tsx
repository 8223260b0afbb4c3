import { z } from "zod";
import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { NotFound } from "../../domain-errors";
import { pageRefusal } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { reviewPageData, runReviewIntent } from "../../tasks/access-review-page.server";
import type { Route } from "./+types/route";
import { ReviewItems } from "./review-items";
import { ReviewState } from "./review-state";

// One access review: each grant with when its permissions were last used; keep or revoke, one at a
// time or the ticked ones; close it (a task with live progress) and hand over the sealed evidence.

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "roles.manage");
  const id = z.string().uuid().safeParse(args.params.id);
  try {
    if (!id.success) throw new NotFound("access.review.gone");
    return await reviewPageData(user, id.data);
  } catch (error) {
    if (error instanceof NotFound) throw pageRefusal(getT(args.context), "access.review.gone", 404);
    throw error;
  }
}

export const headers = passRetryAfter;

export const action = (args: Route.ActionArgs) => runReviewIntent(args);

export default function AccessReview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { review } = loaderData;
  return (
    <div className="flex min-w-0 flex-col gap-6">
      <h1 className="text-2xl font-semibold">{t("access:reviews.heading", { name: review.name })}</h1>
      <ReviewState review={review} />
      <ReviewItems review={review} />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches, loaderData }) =>
  pageTitle(matches, loaderData ? { name: loaderData.review.name } : "accessReview");
