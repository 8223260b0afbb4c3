import { data } from "react-router";
import { closeForm, decideForm, reviewForm } from "../access/access-review-schemas";
import { roleGrants } from "../access/role-cache.server";
import { refuseWhileImpersonating } from "../auth/guard.server";
import { type ActionArgs, handleIntents } from "../auth/intents.server";
import type { SessionUser } from "../auth/session.server";
import { db } from "../db.server";
import { redirectWithToast } from "../http/form.server";
import { getT } from "../i18n/i18n.server";
import {
  createAccessReview,
  decideReviewItems,
  getAccessReview,
  listAccessReviews,
} from "../users/access-reviews.server";
import { startReviewClose } from "./access-review-close.server";

// /dashboard/access/reviews and /dashboard/access/reviews/:id (here, above users, because closing
// starts a task): open a review, keep or revoke items (in bulk too), close it with live progress.

export async function reviewsPageData() {
  const [reviews, roles, teams] = await Promise.all([
    listAccessReviews(),
    roleGrants(),
    db().selectFrom("team").select(["id", "name"]).orderBy("name").limit(500).execute(),
  ]);
  return {
    reviews,
    roles: [...roles.values()].map((r) => ({ name: r.name, label: r.label, translations: r.translations })),
    teams,
  };
}

export async function reviewPageData(user: SessionUser, id: string) {
  return { review: await getAccessReview(user, id), me: user.id };
}

const ok = <I extends string>(intent: I, message: string, extra: { taskId?: string } = {}) =>
  data({
    ok: true as const,
    intent,
    errors: {} as Record<string, string>,
    formError: null,
    message,
    ...extra,
  });

export const runReviewIntent = (args: ActionArgs) => {
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      open: {
        schema: reviewForm,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const review = await createAccessReview(actor, input, args);
          return redirectWithToast(`/dashboard/access/reviews/${review.id}`, {
            kind: "success",
            message: t("access:reviews.opened", { name: review.name, count: review.counts.items }),
          });
        },
      },
      decide: {
        schema: decideForm,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const { decided, refused } = await decideReviewItems(
            actor,
            input.review,
            input.items,
            input.decision,
            args,
          );
          const said = t(input.decision === "keep" ? "access:reviews.kept" : "access:reviews.revoked", {
            count: decided,
          });
          return ok("decide", refused ? `${said} ${t("access:reviews.skipped", { count: refused })}` : said);
        },
      },
      close: {
        schema: closeForm,
        run: async ({ actor, input }) => {
          refuseWhileImpersonating(args, actor);
          const outcome = await startReviewClose(actor, input.review);
          if (!outcome.ok)
            return data(
              {
                ok: false as const,
                intent: "close",
                errors: {} as Record<string, string>,
                formError:
                  outcome.status === "too_many_tasks"
                    ? t("access:reviews.tooManyTasks", { count: outcome.limit })
                    : t("access:reviews.notClosed"),
                message: null,
              },
              { status: outcome.status === "too_many_tasks" ? 429 : 400 },
            );
          return ok("close", t("access:reviews.closing"), { taskId: outcome.taskId });
        },
      },
    },
    { permission: "roles.manage" },
  );
};
