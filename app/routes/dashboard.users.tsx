import { useState } from "react";
import { Form, Link, useSearchParams } from "react-router";
import { z } from "zod";
import { can } from "../access/check";
import { requirePermission } from "../access/guard.server";
import { handleIntents } from "../access/intents.server";
import { roleGrants } from "../access/role-cache.server";
import { assignableRoles } from "../access/rules.server";
import { inviteSchema, PASSWORD_MIN } from "../auth/account-schemas";
import {
  cancelInvitation,
  inviteUser,
  pendingInvitations,
  resendInvitation,
} from "../auth/invitations.server";
import { formatDateTime } from "../components/format";
import { useIsPending } from "../components/forms/use-is-pending";
import { pageTitle } from "../components/page-title";
import { Button } from "../components/ui/button";
import { Card, EmptyState, FormError } from "../components/ui/card";
import { Field } from "../components/ui/field";
import { Pagination } from "../components/ui/pagination";
import { Select } from "../components/ui/select";
import { NotFound } from "../domain-errors";
import { redirectWithToast } from "../http/form.server";
import { passRetryAfter } from "../http/responses";
import { type BulkResult, bulkUsers } from "../users/bulk.server";
import { listUsers, parseUserListQuery } from "../users/list.server";
import { PAGE_SIZES, type USER_SORTS } from "../users/list-options";
import { createUser, createUserSchema } from "../users/users.server";
import type { Route } from "./+types/dashboard.users";

const bulkSchema = z.object({ ids: z.array(z.string().uuid()).min(1, "Select at least one user.").max(100) });

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "user.read");
  const query = parseUserListQuery(new URL(args.request.url));
  const mayWrite = can(user, "user.write");
  const [list, grants, assignable, invitations] = await Promise.all([
    listUsers(query),
    roleGrants(),
    assignableRoles(user),
    mayWrite ? pendingInvitations() : Promise.resolve([]),
  ]);
  return {
    query,
    ...list,
    roles: [...grants.values()].map((r) => ({ id: r.id, name: r.name, label: r.label })),
    assignable: mayWrite ? assignable.map((r) => ({ id: r.id, name: r.name, label: r.label })) : [],
    invitations,
    may: {
      write: mayWrite,
      update: can(user, "user.update"),
      delete: can(user, "user.delete"),
    },
  };
}

// A 429's Retry-After reaches the browser only through this export.
export const headers = passRetryAfter;

/** Back to the list as it was filtered, with a toast. */
function backWith(args: Route.ActionArgs, kind: "success" | "error", message: string) {
  const back = new URL(args.request.url);
  return redirectWithToast(back.pathname + back.search, { kind, message });
}

/** A malformed id names no pending invitation: the same 404 as one spent meanwhile. */
function invitationId(form: FormData) {
  const id = z.string().uuid().safeParse(form.get("invitationId"));
  if (!id.success) throw new NotFound("That invitation is no longer pending.");
  return id.data;
}

async function bulk(args: Route.ActionArgs, action: "disable" | "delete", result: BulkResult) {
  const verb = action === "delete" ? "Deleted" : "Disabled";
  const note = result.refused.length
    ? ` Refused ${result.refused.length}: ${[...new Set(result.refused)].join(" ")}`
    : "";
  return backWith(
    args,
    result.refused.length ? "error" : "success",
    `${verb} ${result.done} user(s).${note}`,
  );
}

export const action = (args: Route.ActionArgs) =>
  handleIntents(args, {
    create: {
      permission: "user.write",
      schema: createUserSchema,
      run: async ({ actor, input }) => {
        const id = await createUser(actor, input, args);
        return redirectWithToast(`/dashboard/users/${id}`, {
          kind: "success",
          message: `Created ${input.email}.`,
        });
      },
    },
    invite: {
      permission: "user.write",
      schema: inviteSchema,
      run: async ({ actor, input }) => {
        await inviteUser(actor, { email: input.email, roleIds: input.roles }, args);
        return backWith(args, "success", `Invitation sent to ${input.email}.`);
      },
    },
    "resend-invite": {
      permission: "user.write",
      run: async ({ actor, form }) => {
        await resendInvitation(actor, { id: invitationId(form) }, args);
        return backWith(args, "success", "A new invitation link was sent.");
      },
    },
    "cancel-invite": {
      permission: "user.write",
      run: async ({ actor, form }) => {
        await cancelInvitation(actor, { id: invitationId(form) }, args);
        return backWith(args, "success", "Invitation cancelled.");
      },
    },
    "bulk-disable": {
      permission: "user.update",
      schema: bulkSchema,
      run: async ({ actor, input }) =>
        bulk(args, "disable", await bulkUsers(actor, { ids: input.ids, action: "disable" }, args)),
    },
    "bulk-delete": {
      permission: "user.delete",
      schema: bulkSchema,
      run: async ({ actor, input }) =>
        bulk(args, "delete", await bulkUsers(actor, { ids: input.ids, action: "delete" }, args)),
    },
  });

function SortHeader({ column, label }: { column: (typeof USER_SORTS)[number]; label: string }) {
  const [params] = useSearchParams();
  const active = (params.get("sort") ?? "created_at") === column;
  const dir = params.get("dir") ?? "desc";
  const next = new URLSearchParams(params);
  next.set("sort", column);
  next.set("dir", active && dir === "asc" ? "desc" : "asc");
  next.delete("page");
  return (
    <th
      scope="col"
      aria-sort={active ? (dir === "asc" ? "ascending" : "descending") : "none"}
      className="px-3 py-2 text-left font-medium"
    >
      <Link to={`?${next}`} className="hover:underline">
        {label} {active ? (dir === "asc" ? "▲" : "▼") : null}
      </Link>
    </th>
  );
}

export default function Users({ loaderData, actionData }: Route.ComponentProps) {
  const { rows, total, query, roles, assignable, invitations, may } = loaderData;
  const [selected, setSelected] = useState<string[]>([]);
  const disabling = useIsPending({ intent: "bulk-disable" });
  const deleting = useIsPending({ intent: "bulk-delete" });
  const inviting = useIsPending({ intent: "invite" });
  const creating = useIsPending({ intent: "create" });
  const errorsOf = (intent: string) => (actionData?.intent === intent ? actionData.errors : {});
  const errors = errorsOf("create");
  const toggle = (id: string) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold">Users</h1>
      <Form method="get" className="flex flex-wrap items-end gap-3" aria-label="Filter users">
        <Field
          label="Search"
          name="q"
          type="search"
          defaultValue={query.q}
          placeholder="Name or email"
          className="w-64"
        />
        <Select label="Role" name="role" defaultValue={query.role}>
          <option value="">Any role</option>
          {roles.map((r) => (
            <option key={r.id} value={r.name}>
              {r.label}
            </option>
          ))}
        </Select>
        <Select label="Status" name="status" defaultValue={query.status}>
          <option value="">Any status</option>
          <option value="active">Active</option>
          <option value="disabled">Disabled</option>
        </Select>
        <Select label="Verified" name="verified" defaultValue={query.verified}>
          <option value="">Any</option>
          <option value="yes">Verified</option>
          <option value="no">Not verified</option>
        </Select>
        <Select label="Page size" name="size" defaultValue={String(query.size)}>
          {PAGE_SIZES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
        <input type="hidden" name="sort" value={query.sort} />
        <input type="hidden" name="dir" value={query.dir} />
        <Button variant="secondary">Apply</Button>
      </Form>

      <Form method="post">
        {selected.map((id) => (
          <input key={id} type="hidden" name="ids" value={id} />
        ))}
        {(may.update || may.delete) && rows.length > 0 ? (
          <div className="mb-2 flex items-center gap-2">
            <span className="text-sm">{selected.length} selected</span>
            {may.update ? (
              <Button
                variant="secondary"
                name="intent"
                value="bulk-disable"
                disabled={!selected.length}
                pending={disabling}
              >
                Disable selected
              </Button>
            ) : null}
            {may.delete ? (
              <Button
                variant="danger"
                name="intent"
                value="bulk-delete"
                disabled={!selected.length}
                pending={deleting}
                onClick={(e) => {
                  if (!confirm(`Delete ${selected.length} user(s)? This cannot be undone.`))
                    e.preventDefault();
                }}
              >
                Delete selected
              </Button>
            ) : null}
          </div>
        ) : null}
        {actionData?.formError && actionData.intent?.startsWith("bulk") ? (
          <FormError message={actionData.formError} />
        ) : null}
      </Form>

      {rows.length === 0 ? (
        <EmptyState>No users match these filters.</EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
          <table className="w-full text-sm">
            <thead className="border-b border-slate-200 dark:border-slate-800">
              <tr>
                <th scope="col" className="px-3 py-2">
                  <span className="sr-only">Select</span>
                </th>
                <SortHeader column="name" label="Name" />
                <SortHeader column="email" label="Email" />
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Roles
                </th>
                <SortHeader column="email_verified" label="Verified" />
                <SortHeader column="status" label="Status" />
                <SortHeader column="last_login_at" label="Last sign-in" />
                <SortHeader column="created_at" label="Created" />
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <tr key={u.id} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                  <td className="px-3 py-2">
                    <input
                      type="checkbox"
                      aria-label={`Select ${u.name}`}
                      checked={selected.includes(u.id)}
                      onChange={() => toggle(u.id)}
                    />
                  </td>
                  <td className="px-3 py-2">
                    <Link
                      to={`/dashboard/users/${u.id}`}
                      className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                    >
                      {u.name}
                    </Link>
                  </td>
                  <td className="px-3 py-2">{u.email}</td>
                  <td className="px-3 py-2">{u.roles.map((r) => r.label).join(", ") || "—"}</td>
                  <td className="px-3 py-2">{u.email_verified ? "Yes" : "No"}</td>
                  <td className="px-3 py-2">{u.status === "active" ? "Active" : "Disabled"}</td>
                  <td className="px-3 py-2">{formatDateTime(u.last_login_at)}</td>
                  <td className="px-3 py-2">{formatDateTime(u.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination page={query.page} size={query.size} total={total} />

      {may.write ? (
        <Card title="Invite by email">
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
            The person gets a link valid for 7 days to choose their name and password.
          </p>
          <Form method="post" className="grid gap-3 sm:grid-cols-2">
            <Field
              label="Email to invite"
              name="email"
              type="email"
              required
              error={errorsOf("invite").email}
            />
            <fieldset>
              <legend className="text-sm font-medium">Roles for the invitee</legend>
              <div className="mt-1 flex flex-wrap gap-3">
                {assignable.map((r) => (
                  <label key={r.id} className="flex items-center gap-1 text-sm">
                    <input type="checkbox" name="roles" value={r.id} defaultChecked={r.name === "user"} />{" "}
                    {r.label}
                  </label>
                ))}
              </div>
              {errorsOf("invite").roles ? (
                <p className="mt-1 text-sm text-red-700 dark:text-red-400">{errorsOf("invite").roles}</p>
              ) : null}
            </fieldset>
            {actionData?.intent === "invite" ? <FormError message={actionData.formError} /> : null}
            <div className="sm:col-span-2">
              <Button name="intent" value="invite" pending={inviting}>
                Send invitation
              </Button>
            </div>
          </Form>
        </Card>
      ) : null}

      {may.write && invitations.length > 0 ? (
        <Card title="Pending invitations">
          <ul className="flex flex-col gap-2 text-sm" data-testid="pending-invitations">
            {invitations.map((inv) => (
              <li key={inv.id} className="flex flex-wrap items-center justify-between gap-2">
                <span>
                  {inv.email} · {inv.roles.join(", ") || "no roles"} · expires {formatDateTime(inv.expiresAt)}
                </span>
                <Form method="post" className="flex gap-2">
                  <input type="hidden" name="invitationId" value={inv.id} />
                  <Button
                    variant="secondary"
                    name="intent"
                    value="resend-invite"
                    className="px-2 py-1 text-xs"
                    aria-label={`Resend the invitation to ${inv.email}`}
                  >
                    Resend
                  </Button>
                  <Button
                    variant="secondary"
                    name="intent"
                    value="cancel-invite"
                    className="px-2 py-1 text-xs"
                    aria-label={`Cancel the invitation to ${inv.email}`}
                  >
                    Cancel
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      {may.write ? (
        <Card title="Create a user">
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
            The account is verified at once; the person must change the temporary password at first sign-in.
          </p>
          <Form method="post" className="grid gap-3 sm:grid-cols-2">
            <input type="hidden" name="intent" value="create" />
            <Field label="Name" name="name" required error={errors.name} />
            <Field label="Email" name="email" type="email" required error={errors.email} />
            <Field
              label="Temporary password"
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={PASSWORD_MIN}
              required
              error={errors.password}
            />
            <fieldset>
              <legend className="text-sm font-medium">Roles</legend>
              <div className="mt-1 flex flex-wrap gap-3">
                {assignable.map((r) => (
                  <label key={r.id} className="flex items-center gap-1 text-sm">
                    <input type="checkbox" name="roles" value={r.id} /> {r.label}
                  </label>
                ))}
              </div>
            </fieldset>
            {actionData?.intent === "create" ? <FormError message={actionData.formError} /> : null}
            <div className="sm:col-span-2">
              <Button name="intent" value="create" pending={creating}>
                Create user
              </Button>
            </div>
          </Form>
        </Card>
      ) : null}
    </div>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "Users");
