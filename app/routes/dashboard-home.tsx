import { useRouteLoaderData } from "react-router";
import { can } from "../access/check";
import { PERMISSIONS } from "../access/permissions";
import { TaskActions } from "../components/tasks/task-actions";
import type { loader as rootLoader } from "../root";

export default function DashboardHome() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  if (!root?.user) return null;
  const { user } = root;
  const held = user.isSuperAdmin ? PERMISSIONS : PERMISSIONS.filter((p) => user.permissions.includes(p.key));
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold">Welcome, {user.name}</h1>
        <p className="mt-1 text-slate-700 dark:text-slate-300">Signed in as {user.email}.</p>
      </div>
      <TaskActions canExportUsers={can(user, "user.read")} />
      <section
        aria-labelledby="roles-heading"
        className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      >
        <h2 id="roles-heading" className="font-semibold">
          Your roles
        </h2>
        <ul className="mt-2 flex flex-wrap gap-2" data-testid="my-roles">
          {user.roles.map((r) => (
            <li
              key={r}
              className="rounded-full bg-indigo-100 px-3 py-1 text-sm text-indigo-900 dark:bg-indigo-900 dark:text-indigo-100"
            >
              {r}
            </li>
          ))}
        </ul>
      </section>
      <section
        aria-labelledby="perms-heading"
        className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      >
        <h2 id="perms-heading" className="font-semibold">
          Your permissions {user.isSuperAdmin ? "(all, as super admin)" : null}
        </h2>
        <ul className="mt-2 grid gap-1 sm:grid-cols-2" data-testid="my-permissions">
          {held.map((p) => (
            <li key={p.key} className="text-sm">
              {p.label} <code className="text-xs text-slate-600 dark:text-slate-400">{p.key}</code>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

export const meta = () => [{ title: "Dashboard" }];
