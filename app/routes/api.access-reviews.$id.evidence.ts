import { z } from "zod";
import { requirePermission } from "../auth/guard.server";
import { apiError } from "../http/responses";
import { evidenceFilename } from "../tasks/access-review-apply.server";
import { reviewEvidence } from "../users/access-reviews.server";
import type { Route } from "./+types/api.access-reviews.$id.evidence";

// A closed review's evidence, byte for byte what was hashed: `npm run audit:verify -- --evidence FILE`
// finds its SHA-256 in the audit chain.

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "roles.manage");
  const id = z.string().uuid().safeParse(args.params.id);
  if (!id.success) return apiError(404, "not_found");
  const review = await reviewEvidence(id.data);
  if (!review) return apiError(404, "not_found");
  if (!review.evidence_csv) return apiError(409, "conflict", { message: "The review is not closed yet." });
  return new Response(review.evidence_csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${evidenceFilename(review.name)}"`,
      "X-Content-SHA256": review.evidence_sha256 ?? "",
      "Cache-Control": "no-store",
    },
  });
}
