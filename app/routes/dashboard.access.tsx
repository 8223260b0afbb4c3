import { ArrowDown, ArrowUp, Lock } from "lucide-react";
import { Form, useFetcher, useNavigation } from "react-router";
import { z } from "zod";
import { requirePermission } from "../access/guard.server";
import { handleIntents } from "../access/intents.server";
import { menuItems } from "../access/menu.server";
import { moveMenuItem, saveMenu, updateMenuItem } from "../access/menu-admin.server";
import { menuItemSchema, saveMenuSchema } from "../access/menu-schemas";
import { PERMISSIONS } from "../access/permissions";
import { createRoleSchema, saveMatrixSchema, updateRoleSchema } from "../access/role-schemas";
import { createRole, deleteRole, listRoles, saveRoleMatrix, updateRole } from "../access/roles-admin.server";
import { stalePermissions } from "../access/sync.server";
import { useIsPending } from "../components/forms/use-is-pending";
import { MENU_ICONS, menuIcon } from "../components/icons";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card, FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { Select } from "../components/ui/select";
import { NotFound } from "../domain-errors";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import type { Route } from "./+types/dashboard.access";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "roles.manage");
  const [roles, menu, stale] = await Promise.all([listRoles(user), menuItems(), stalePermissions()]);
  return { roles, menu, stale, isSuperAdmin: user.isSuperAdmin };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

const done = (message: string) => redirectWithToast("/dashboard/access", { kind: "success", message });

/** A malformed id names nothing: the same 404 as a row deleted meanwhile. */
function existingId(value: FormDataEntryValue | null, what: "role" | "menu item") {
  const id = z.string().uuid().safeParse(value);
  if (!id.success) throw new NotFound(`That ${what} no longer exists.`);
  return id.data;
}

// A menu item's field errors show beside that item.
const menuRow = (form: FormData) => `menu:${form.get("id")}`;

export const action = (args: Route.ActionArgs) =>
  handleIntents(
    args,
    {
      "create-role": {
        schema: createRoleSchema,
        run: async ({ actor, input }) => {
          await createRole(actor, input, args);
          return done(`Role "${input.label}" created.`);
        },
      },
      "save-matrix": {
        schema: saveMatrixSchema,
        run: async ({ actor, input }) => {
          const changed = await saveRoleMatrix(actor, input, args);
          return done(
            changed
              ? `Permissions saved for ${changed} role${changed === 1 ? "" : "s"}.`
              : "Nothing to save.",
          );
        },
      },
      "update-role": {
        schema: updateRoleSchema,
        run: async ({ actor, input }) => {
          await updateRole(actor, input, args);
          return done("Role saved.");
        },
      },
      "delete-role": {
        run: async ({ actor, form }) => {
          await deleteRole(actor, { roleId: existingId(form.get("roleId"), "role") }, args);
          return done("Role deleted.");
        },
      },
      "update-menu": {
        schema: menuItemSchema,
        answerAs: menuRow,
        run: async ({ actor, input }) => {
          await updateMenuItem(actor, input, args);
          return done("Menu item saved.");
        },
      },
      "save-menu": {
        schema: saveMenuSchema,
        run: async ({ actor, input }) => {
          const changed = await saveMenu(actor, input, args);
          return done(changed ? "Menu saved." : "Nothing to save.");
        },
      },
      "move-up": {
        run: async ({ actor, form }) => {
          await moveMenuItem(actor, { id: existingId(form.get("id"), "menu item"), direction: "up" }, args);
          return done("Menu order saved.");
        },
      },
      "move-down": {
        run: async ({ actor, form }) => {
          await moveMenuItem(actor, { id: existingId(form.get("id"), "menu item"), direction: "down" }, args);
          return done("Menu order saved.");
        },
      },
    },
    { permission: "roles.manage" },
  );

function SyncPermissions({ stale }: { stale: string[] }) {
  const fetcher = useFetcher<{ inserted: string[]; total: number; error?: string }>();
  const syncing = useIsPending({ formAction: "/api/access/sync" });
  return (
    <Card title="Permissions in code and database">
      <fetcher.Form method="post" action="/api/access/sync" className="flex items-center gap-3">
        <Button pending={syncing}>Sync permissions from code</Button>
        <p role="status" className="text-sm">
          {fetcher.data?.inserted
            ? fetcher.data.inserted.length
              ? `Inserted ${fetcher.data.inserted.join(", ")} (${fetcher.data.total} in total).`
              : `Nothing to insert; ${fetcher.data.total} permissions are in the database.`
            : null}
        </p>
      </fetcher.Form>
      {stale.length ? (
        <p className="mt-3 text-sm text-amber-800 dark:text-amber-300">
          Stale (in the database, no longer in code): {stale.join(", ")}
        </p>
      ) : null}
    </Card>
  );
}

export default function AccessControl({ loaderData, actionData }: Route.ComponentProps) {
  const { roles, menu, stale, isSuperAdmin } = loaderData;
  const navigation = useNavigation();
  const pending = (intent: string, id?: string) =>
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    (!id || navigation.formData?.get("roleId") === id || navigation.formData?.get("id") === id);
  const errorsFor = (intent: string) => (actionData?.intent === intent ? actionData.errors : {});

  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">Access control</h1>
      {actionData?.formError ? <FormError message={actionData.formError} /> : null}

      <Card title="Roles and permissions">
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 dark:border-slate-800">
                <th scope="col" className="px-2 py-2 text-left">
                  Permission
                </th>
                {roles.map((r) => (
                  <th key={r.id} scope="col" className="px-2 py-2 text-center">
                    {r.label}
                    <span className="block text-xs font-normal text-slate-600 dark:text-slate-400">
                      {r.users} user{r.users === 1 ? "" : "s"}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {PERMISSIONS.map((p) => (
                <tr key={p.key} className="border-b border-slate-100 dark:border-slate-800">
                  <th scope="row" className="px-2 py-1 text-left font-normal">
                    {p.label}{" "}
                    <code className="block text-xs text-slate-600 dark:text-slate-400">{p.key}</code>
                  </th>
                  {roles.map((r) => (
                    <td key={r.id} className="px-2 py-1 text-center">
                      {r.all ? (
                        <span title="All permissions">
                          <Lock
                            aria-label={`${r.label} holds all permissions`}
                            className="inline size-4 text-slate-500"
                          />
                        </span>
                      ) : (
                        <input
                          type="checkbox"
                          form={`role-${r.id}`}
                          name="permissions"
                          value={p.key}
                          defaultChecked={r.permissions.includes(p.key)}
                          aria-label={`${r.label}: ${p.label}`}
                        />
                      )}
                    </td>
                  ))}
                </tr>
              ))}
              <tr>
                <th scope="row" className="px-2 py-2 text-left font-normal">
                  Label and save
                </th>
                {roles.map((r) => (
                  <td key={r.id} className="px-2 py-2 align-top">
                    {r.all ? (
                      <p className="text-center text-xs">All permissions (locked)</p>
                    ) : (
                      <Form method="post" id={`role-${r.id}`} className="flex flex-col gap-1">
                        <input type="hidden" name="roleId" value={r.id} />
                        <label className="sr-only" htmlFor={`label-${r.id}`}>
                          Label of {r.name}
                        </label>
                        <input
                          id={`label-${r.id}`}
                          name="label"
                          defaultValue={r.label}
                          className="w-28 rounded border border-slate-400 px-1 py-0.5 text-xs dark:border-slate-600 dark:bg-slate-900"
                        />
                        <Button
                          name="intent"
                          value="update-role"
                          className="px-2 py-1 text-xs"
                          pending={pending("update-role", r.id)}
                        >
                          Save {r.label}
                        </Button>
                        {!r.system ? (
                          <Button
                            variant="danger"
                            name="intent"
                            value="delete-role"
                            className="px-2 py-1 text-xs"
                            pending={pending("delete-role", r.id)}
                          >
                            Delete
                          </Button>
                        ) : null}
                      </Form>
                    )}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        </div>
      </Card>

      <Card title="Create a role">
        <Form method="post" className="flex flex-col gap-3">
          <div className="grid gap-3 sm:grid-cols-2">
            <Field
              label="Name"
              name="name"
              placeholder="e.g. support_agent"
              required
              error={errorsFor("create-role").name}
            />
            <Field
              label="Label"
              name="label"
              placeholder="e.g. Support Agent"
              required
              error={errorsFor("create-role").label}
            />
          </div>
          <fieldset>
            <legend className="text-sm font-medium">Permissions</legend>
            <div className="mt-1 grid gap-1 sm:grid-cols-2">
              {PERMISSIONS.map((p) => (
                <label key={p.key} className="flex items-center gap-2 text-sm">
                  <input type="checkbox" name="permissions" value={p.key} /> {p.label}
                </label>
              ))}
            </div>
          </fieldset>
          <div>
            <Button name="intent" value="create-role" pending={pending("create-role")}>
              Create role
            </Button>
          </div>
        </Form>
      </Card>

      <Card title="Sidebar menu">
        <ol className="flex flex-col gap-3">
          {menu.map((item, i) => {
            const Icon = menuIcon(item.icon);
            const errors = errorsFor(`menu:${item.id}`);
            return (
              <li key={item.id} className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
                <Form method="post" className="grid items-end gap-2 sm:grid-cols-[auto_1fr_1fr_1fr_1fr_auto]">
                  <input type="hidden" name="id" value={item.id} />
                  <Icon aria-hidden className="mb-2 size-5" />
                  <Field label="Title" name="title" defaultValue={item.title} error={errors.title} />
                  <Field label="URL" name="url" defaultValue={item.url} error={errors.url} />
                  <Select label="Icon" name="icon" defaultValue={item.icon} error={errors.icon}>
                    {Object.keys(MENU_ICONS).map((name) => (
                      <option key={name} value={name}>
                        {name}
                      </option>
                    ))}
                  </Select>
                  <Select
                    label="Required permission"
                    name="requiredPermission"
                    defaultValue={item.required_permission}
                    error={errors.requiredPermission}
                  >
                    {PERMISSIONS.map((p) => (
                      <option key={p.key} value={p.key}>
                        {p.key}
                      </option>
                    ))}
                  </Select>
                  <div className="flex gap-1">
                    <Button name="intent" value="update-menu" pending={pending("update-menu", item.id)}>
                      Save
                    </Button>
                    <Button
                      variant="secondary"
                      name="intent"
                      value="move-up"
                      disabled={i === 0}
                      aria-label={`Move ${item.title} up`}
                    >
                      <ArrowUp aria-hidden className="size-4" />
                    </Button>
                    <Button
                      variant="secondary"
                      name="intent"
                      value="move-down"
                      disabled={i === menu.length - 1}
                      aria-label={`Move ${item.title} down`}
                    >
                      <ArrowDown aria-hidden className="size-4" />
                    </Button>
                  </div>
                </Form>
              </li>
            );
          })}
        </ol>
      </Card>

      {isSuperAdmin ? <SyncPermissions stale={stale} /> : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Access control");
