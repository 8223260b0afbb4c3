import type { TFunction } from "i18next";
import { useState } from "react";
import { Link, type ShouldRevalidateFunctionArgs, useFetcher } from "react-router";
import { z } from "zod";
import { whoCan } from "../../access/explain.server";
import { menuItems } from "../../access/menu.server";
import {
  addMenuItem,
  moveMenuItem,
  saveMenu,
  setMenuItemHidden,
  updateMenuItem,
} from "../../access/menu-admin.server";
import { addMenuItemSchema, menuItemSchema, saveMenuSchema } from "../../access/menu-schemas";
import { PERMISSION_KEYS } from "../../access/permissions";
import { roleGrants } from "../../access/role-cache.server";
import { roleNamesIn } from "../../access/role-labels";
import {
  createRoleSchema,
  requestHoursSchema,
  saveMatrixSchema,
  updateRoleSchema,
} from "../../access/role-schemas";
import {
  createRole,
  deleteRole,
  listRoles,
  saveRoleMatrix,
  setRequestHours,
  updateRole,
} from "../../access/roles-admin.server";
import { matrixChanges, simulate } from "../../access/simulate.server";
import { stalePermissions } from "../../access/sync.server";
import { requirePermission } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { isPreview } from "../../components/access/change-preview";
import { useIsPending } from "../../components/forms/use-is-pending";
import { pageTitle } from "../../components/page-title";
import { Button } from "../../components/ui/button";
import { Card, FormError } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { NotFound } from "../../domain-errors";
import { redirectWithToast } from "../../http/form.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { teamChoices } from "../../teams/teams.server";
import type { Route } from "./+types/route";
import { type AccessTab, AccessTabs, accessTabOf } from "./access-tabs";
import { AddMenuItem } from "./add-menu-item";
import { CreateRole } from "./create-role";
import { LeaveGuard } from "./leave-guard";
import { PREVIEW_INTENT } from "./matrix-preview";
import { MenuEditor } from "./menu-editor";
import { RoleList } from "./role-list";
import { RoleMatrix } from "./role-matrix";
import { WhoCan, type WhoCanData } from "./who-can";

const WHO_PAGE = 50;
const whoQuery = z.object({
  permission: z.enum(PERMISSION_KEYS as [string, ...string[]]).catch(""),
  team: z.string().uuid().catch(""),
  after: z.coerce.number().int().min(0).max(1_000_000).catch(0),
});

/** The "Who can" tab's answer: null until a permission is chosen; an unknown team is no filter. */
async function whoCanFor(url: URL, t: TFunction): Promise<WhoCanData> {
  const q = whoQuery.parse({
    permission: url.searchParams.get("permission") ?? "",
    team: url.searchParams.get("team") ?? "",
    after: url.searchParams.get("after") ?? 0,
  });
  const [teams, labels] = await Promise.all([
    teamChoices(),
    roleGrants().then((g) => roleNamesIn(t, g.values())),
  ]);
  const team = teams.some((x) => x.id === q.team) ? q.team : "";
  if (!q.permission) return { permission: "", team, teams, result: null };
  const found = await whoCan(q.permission, { teamId: team || undefined, limit: WHO_PAGE, offset: q.after });
  const users = found.users.map((u) => ({
    ...u,
    grants: u.grants.map((g) => ({
      ...g,
      role: { ...g.role, label: labels.get(g.role.id) ?? g.role.label },
    })),
  }));
  return {
    permission: q.permission,
    team,
    teams,
    result: { users, total: found.total, offset: q.after, size: WHO_PAGE },
  };
}

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "roles.manage");
  const [roles, menu, stale, who] = await Promise.all([
    listRoles(user),
    menuItems(),
    stalePermissions(),
    whoCanFor(new URL(args.request.url), getT(args.context)),
  ]);
  return { roles, menu, stale, who, isSuperAdmin: user.isSuperAdmin };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

/** Back to the tab the change was made on; the permissions tab is the page's plain address. */
const done = (message: string, tab: AccessTab = "permissions") =>
  redirectWithToast(tab === "permissions" ? "/dashboard/access" : `/dashboard/access?tab=${tab}`, {
    kind: "success",
    message,
  });

/** Switching tabs changes only `?tab=`: every tab is on the page already, nothing to load again. */
export function shouldRevalidate({
  currentUrl,
  nextUrl,
  formMethod,
  formData,
  defaultShouldRevalidate,
}: ShouldRevalidateFunctionArgs) {
  if (isPreview(formData)) return false;
  if (formMethod || currentUrl.pathname !== nextUrl.pathname) return defaultShouldRevalidate;
  const rest = (url: URL) => {
    const params = new URLSearchParams(url.search);
    params.delete("tab");
    return params.toString();
  };
  return rest(currentUrl) === rest(nextUrl) ? false : defaultShouldRevalidate;
}

const GONE = { role: "access.roleGone", "menu item": "access.menuItemGone" } as const;

/** A malformed id names nothing: the same 404 as a row deleted meanwhile. */
function existingId(value: FormDataEntryValue | null, what: keyof typeof GONE) {
  const id = z.string().uuid().safeParse(value);
  if (!id.success) throw new NotFound(GONE[what]);
  return id.data;
}

// A menu item's field errors show beside that item.
const menuRow = (form: FormData) => `menu:${form.get("id")}`;

export const action = (args: Route.ActionArgs) => {
  // The toasts are shown as written: translated here, in the request's language.
  const t = getT(args.context);
  return handleIntents(
    args,
    {
      "create-role": {
        schema: createRoleSchema,
        run: async ({ actor, input }) => {
          await createRole(actor, input, args);
          return done(t("access:toast.roleCreated", { label: input.label }), "roles");
        },
      },
      "save-matrix": {
        schema: saveMatrixSchema,
        run: async ({ actor, input }) => {
          const changed = await saveRoleMatrix(actor, input, args);
          return done(
            changed ? t("access:toast.matrixSaved", { count: changed }) : t("access:toast.nothingToSave"),
          );
        },
      },
      // The unsaved matrix's effect on people, for the bar beside Save (matrix-preview.tsx).
      [PREVIEW_INTENT]: {
        schema: saveMatrixSchema,
        run: async ({ input }) => ({
          intent: PREVIEW_INTENT as typeof PREVIEW_INTENT,
          preview: await simulate({ changes: await matrixChanges(input.roles) }),
        }),
      },
      "update-role": {
        schema: updateRoleSchema,
        run: async ({ actor, input }) => {
          await updateRole(actor, input, args);
          return done(t("access:toast.roleSaved"));
        },
      },
      "role-requestable": {
        schema: requestHoursSchema,
        run: async ({ actor, input }) => {
          const role = await setRequestHours(actor, input, args);
          const label = roleNamesIn(t, [role]).get(role.id) ?? role.label;
          return done(
            input.hours
              ? t("access:toast.requestableOn", { role: label, hours: input.hours })
              : t("access:toast.requestableOff", { role: label }),
            "roles",
          );
        },
      },
      "delete-role": {
        run: async ({ actor, form }) => {
          await deleteRole(actor, { roleId: existingId(form.get("roleId"), "role") }, args);
          // Deleted from the matrix's header or from the roles tab: back to the same one.
          return done(t("access:toast.roleDeleted"), accessTabOf(form.get("tab")) ?? "roles");
        },
      },
      "update-menu": {
        schema: menuItemSchema,
        answerAs: menuRow,
        run: async ({ actor, input }) => {
          await updateMenuItem(actor, input, args);
          return done(t("access:toast.menuItemSaved"), "menu");
        },
      },
      "save-menu": {
        schema: saveMenuSchema,
        run: async ({ actor, input }) => {
          const changed = await saveMenu(actor, input, args);
          return done(changed ? t("access:toast.menuSaved") : t("access:toast.nothingToSave"), "menu");
        },
      },
      "move-up": {
        run: async ({ actor, form }) => {
          await moveMenuItem(actor, { id: existingId(form.get("id"), "menu item"), direction: "up" }, args);
          return done(t("access:toast.menuOrderSaved"), "menu");
        },
      },
      "move-down": {
        run: async ({ actor, form }) => {
          await moveMenuItem(actor, { id: existingId(form.get("id"), "menu item"), direction: "down" }, args);
          return done(t("access:toast.menuOrderSaved"), "menu");
        },
      },
      "add-menu-item": {
        schema: addMenuItemSchema,
        run: async ({ actor, input }) => {
          await addMenuItem(actor, input, args);
          return done(t("access:toast.menuItemAdded", { title: input.title }), "menu");
        },
      },
      "hide-menu-item": {
        run: async ({ actor, form }) => {
          const id = existingId(form.get("id"), "menu item");
          await setMenuItemHidden(actor, { id, hidden: true }, args);
          return done(t("access:toast.menuItemHidden"), "menu");
        },
      },
      "show-menu-item": {
        run: async ({ actor, form }) => {
          const id = existingId(form.get("id"), "menu item");
          await setMenuItemHidden(actor, { id, hidden: false }, args);
          return done(t("access:toast.menuItemShown"), "menu");
        },
      },
    },
    { permission: "roles.manage" },
  );
};

function SyncPermissions({ stale }: { stale: string[] }) {
  const fetcher = useFetcher<{ inserted: string[]; total: number; error?: string }>();
  const syncing = useIsPending({ formAction: "/api/access/sync" });
  const { t } = useTranslation();
  return (
    <Card title={t("access:sync.title")}>
      <fetcher.Form method="post" action="/api/access/sync" className="flex items-center gap-3">
        <Button pending={syncing}>{t("access:sync.button")}</Button>
        <p role="status" className="text-sm">
          {fetcher.data?.inserted
            ? fetcher.data.inserted.length
              ? t("access:sync.inserted", {
                  keys: fetcher.data.inserted.join(", "),
                  count: fetcher.data.total,
                })
              : t("access:sync.nothing", { count: fetcher.data.total })
            : null}
        </p>
      </fetcher.Form>
      {stale.length ? (
        <p className="mt-3 text-sm text-warning">{t("access:sync.stale", { keys: stale.join(", ") })}</p>
      ) : null}
    </Card>
  );
}

export default function AccessControl({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { roles, menu, stale, who, isSuperAdmin } = loaderData;
  const [matrixChanges, setMatrixChanges] = useState(0);
  const [menuDirty, setMenuDirty] = useState(false);
  // Answers no form of its own shows (a refused delete, hide or show).
  const pageError =
    actionData &&
    "formError" in actionData &&
    ["delete-role", "hide-menu-item", "show-menu-item"].includes(String(actionData.intent))
      ? actionData.formError
      : null;
  const unsaved =
    matrixChanges && menuDirty
      ? t("access:unsaved.both")
      : matrixChanges
        ? t("access:unsaved.matrix")
        : menuDirty
          ? t("access:unsaved.menu")
          : "";

  return (
    <div className="flex min-w-0 flex-col gap-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold">{t("access:title")}</h1>
        <div className="flex flex-wrap gap-4">
          <Link to="/dashboard/access/requests" className={linkVariants()}>
            {t("access:requests.link")}
          </Link>
          <Link to="/dashboard/access/reviews" className={linkVariants()}>
            {t("access:reviews.title")}
          </Link>
        </div>
      </div>
      <FormError message={pageError} />
      <AccessTabs
        unsaved={{ permissions: matrixChanges > 0, menu: menuDirty }}
        panels={{
          permissions: (
            <>
              <Card title={t("access:matrix.title")}>
                <RoleMatrix roles={roles} onChanges={setMatrixChanges} />
              </Card>
              {isSuperAdmin ? <SyncPermissions stale={stale} /> : null}
            </>
          ),
          roles: (
            <>
              <Card title={t("access:roles.title")}>
                <RoleList roles={roles} />
              </Card>
              <Card title={t("access:create.title")}>
                <CreateRole />
              </Card>
            </>
          ),
          who: (
            <Card title={t("access:who.title")}>
              <WhoCan data={who} />
            </Card>
          ),
          menu: (
            <>
              <Card title={t("access:menu.title")}>
                {/* An item added (here or by another admin) starts the list afresh with it. */}
                <MenuEditor key={menu.map((m) => m.id).join()} menu={menu} onDirty={setMenuDirty} />
              </Card>
              <Card title={t("access:add.title")}>
                <AddMenuItem menu={menu} menuDirty={menuDirty} />
              </Card>
            </>
          ),
        }}
      />
      <LeaveGuard when={Boolean(unsaved)} what={unsaved} />
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "access");
