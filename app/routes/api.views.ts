import { requireUser } from "../auth/guard.server";
import { handleIntents } from "../auth/intents.server";
import { allVisibleViews, createView, deleteView, renameView } from "../views/saved-views.server";
import { createViewSchema, deleteViewSchema, renameViewSchema } from "../views/view-schemas";
import type { Route } from "./+types/api.views";

// Saved views (app/views/, docs/decisions/039-saved-views.md). GET: every view the caller sees on
// the lists they may read (the command palette). POST: the Views control's forms; the owner is
// always the session's user, and a view another person owns is "not found".

export async function loader(args: Route.LoaderArgs) {
  const user = await requireUser(args);
  const views = await allVisibleViews(user);
  return Response.json({ views }, { headers: { "Cache-Control": "private, no-store" } });
}

export const action = (args: Route.ActionArgs) =>
  handleIntents(args, {
    "view-create": {
      schema: createViewSchema,
      run: async ({ actor, input }) => ({
        ok: true as const,
        intent: "view-create",
        view: await createView(actor, input, args),
      }),
    },
    "view-rename": {
      schema: renameViewSchema,
      run: async ({ actor, input }) => {
        await renameView(actor, input, args);
        return { ok: true as const, intent: "view-rename", name: input.name };
      },
    },
    "view-delete": {
      schema: deleteViewSchema,
      run: async ({ actor, input }) => ({
        ok: true as const,
        intent: "view-delete",
        ...(await deleteView(actor, input.id, args)),
      }),
    },
  });
