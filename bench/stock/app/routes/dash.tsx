// A stock page of the same output as our signed-in dashboard (about 275 elements, 14 icons, 31 KB):
// the React and React Router work of a real admin page, with one Kysely query in its loader and
// nothing of ours (no middleware, session, permissions, i18n, CSP or theme). Issue 23's yardstick.
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import {
  Activity,
  Bell,
  ClipboardList,
  LayoutDashboard,
  ListChecks,
  Megaphone,
  Menu,
  Monitor,
  Settings,
  ShieldCheck,
  Users,
  UsersRound,
} from "lucide-react";
import { Link, useLoaderData } from "react-router";

type Tables = { task: { id: number; status: string; created_at: string } };

// One in-memory database per process, filled once, as an app's connection is opened once.
const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: new Database(":memory:") }) });
const ready = (async () => {
  await db.schema
    .createTable("task")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("status", "text")
    .addColumn("created_at", "text")
    .execute();
  const day = (i: number) => new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
  await db
    .insertInto("task")
    .values(
      Array.from({ length: 200 }, (_, i) => ({
        id: i + 1,
        status: i % 7 ? "completed" : "failed",
        created_at: day(i % 14),
      })),
    )
    .execute();
})();

export async function loader() {
  await ready;
  const rows = await db
    .selectFrom("task")
    .select(["status", "created_at", sql<number>`count(*)`.as("n")])
    .groupBy(["status", "created_at"])
    .execute();
  const days = Array.from({ length: 14 }, (_, i) =>
    new Date(Date.now() - (13 - i) * 86_400_000).toISOString().slice(0, 10),
  );
  const per = (status: string) =>
    days.map((d) =>
      rows.filter((r) => r.created_at === d && r.status === status).reduce((n, r) => n + Number(r.n), 0),
    );
  return {
    user: { name: "Super Admin", email: "bench@bench.test" },
    counts: {
      users: 2,
      verified: 2,
      disabled: 0,
      teams: 1,
      tasks: rows.reduce((n, r) => n + Number(r.n), 0),
      mail: 0,
    },
    chart: { days, completed: per("completed"), failed: per("failed") },
    recent: rows.slice(0, 8).map((r, i) => ({
      id: i,
      action: `Task ${r.status}`,
      at: `${r.created_at}T09:${String(10 + i).padStart(2, "0")}:00Z`,
      actor: "Super Admin",
    })),
    permissions: [
      "Access Dashboard",
      "View Users",
      "Create Users",
      "Edit Users",
      "Delete Users",
      "Manage Roles & Permissions",
      "View Audit Logs",
      "Manage System Settings",
      "View Teams",
      "Manage Teams",
    ],
  };
}

const nav = [
  { to: "/dash", label: "Dashboard", Icon: LayoutDashboard },
  { to: "/users", label: "Users", Icon: Users },
  { to: "/teams", label: "Teams", Icon: UsersRound },
  { to: "/access", label: "Access Control", Icon: ShieldCheck },
  { to: "/logs", label: "Audit Logs", Icon: ClipboardList },
  { to: "/settings", label: "Settings", Icon: Settings },
  { to: "/broadcast", label: "Broadcast", Icon: Megaphone },
];
const button =
  "inline-flex items-center justify-center gap-2 rounded-md text-sm font-semibold disabled:opacity-60 aria-disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring hover:bg-accent hover:text-accent-foreground p-2";
const card = "min-w-0 rounded-lg border bg-card p-4";

function Stat({ title, value, details }: { title: string; value: number; details?: string }) {
  return (
    <section className={card}>
      <h2 className="text-sm font-medium text-muted-foreground">{title}</h2>
      <p className="mt-1 text-3xl font-semibold">{value}</p>
      {details ? <p className="mt-1 text-xs text-muted-foreground">{details}</p> : null}
    </section>
  );
}

function Chart({ days, a, b }: { days: string[]; a: number[]; b: number[] }) {
  const max = Math.max(1, ...a, ...b);
  return (
    <figure>
      <svg
        viewBox="0 0 560 180"
        role="img"
        aria-label={`Completed and failed over ${days.length} days`}
        className="w-full max-w-2xl"
      >
        {days.map((d, i) => (
          <g key={d}>
            <rect
              x={i * 40 + 3}
              y={160 - (a[i]! / max) * 150}
              width="16"
              height={(a[i]! / max) * 150}
              className="fill-chart-1"
            >
              <title>{`${d}: ${a[i]}`}</title>
            </rect>
            <rect
              x={i * 40 + 21}
              y={160 - (b[i]! / max) * 150}
              width="16"
              height={(b[i]! / max) * 150}
              className="fill-chart-2"
            >
              <title>{`${d}: ${b[i]}`}</title>
            </rect>
          </g>
        ))}
      </svg>
      <figcaption className="mt-2 flex gap-4 text-xs">
        <span className="flex items-center gap-1">
          <Activity aria-hidden="true" className="size-3" />
          Completed
        </span>
        <span className="flex items-center gap-1">
          <ListChecks aria-hidden="true" className="size-3" />
          Failed
        </span>
      </figcaption>
    </figure>
  );
}

export default function Dash() {
  const { user, counts, chart, recent, permissions } = useLoaderData<typeof loader>();
  return (
    <div className="flex min-h-dvh">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-card focus:p-2"
      >
        Skip to content
      </a>
      <aside className="hidden w-64 shrink-0 border-r bg-card md:block">
        <div className="flex h-14 items-center border-b px-4">
          <span className="font-semibold">Admin Dashboard</span>
        </div>
        <nav aria-label="Main" className="flex flex-col gap-1 p-3">
          <ul className="flex flex-col gap-1">
            {nav.map(({ to, label, Icon }) => (
              <li key={to}>
                <Link
                  to={to}
                  className="flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium text-foreground hover:bg-accent"
                >
                  <Icon aria-hidden="true" className="size-4" />
                  <span>{label}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-14 items-center gap-2 border-b bg-card px-4">
          <button type="button" aria-label="Open menu" className={`${button} md:hidden`}>
            <Menu aria-hidden="true" className="size-5" />
          </button>
          <div className="flex-1" />
          <button type="button" aria-label="Tasks, 0 running" className={button}>
            <ListChecks aria-hidden="true" className="size-5" />
          </button>
          <button type="button" aria-label="Notifications, 0 unread" className={button}>
            <Bell aria-hidden="true" className="size-5" />
          </button>
          <button type="button" aria-label="Theme: System" className={button}>
            <Monitor aria-hidden="true" className="size-5" />
          </button>
          <button type="button" className={button}>
            <span
              aria-hidden="true"
              className="grid size-8 place-items-center rounded-full bg-primary text-sm font-semibold"
            >
              S
            </span>
            <span className="sr-only text-sm sm:not-sr-only">{user.name}</span>
          </button>
        </header>
        <main id="main" className="flex-1 p-4 md:p-8">
          <div className="flex max-w-5xl flex-col gap-6">
            <div>
              <h1 className="text-2xl font-semibold">Welcome, {user.name}</h1>
              <p className="mt-1 text-muted-foreground">Signed in as {user.email}.</p>
            </div>
            <div className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
              <Stat
                title="Users"
                value={counts.users}
                details={`${counts.verified} verified · ${counts.disabled} disabled`}
              />
              <Stat title="Teams" value={counts.teams} />
              <Stat
                title="Tasks"
                value={counts.tasks}
                details={`${chart.completed.reduce((a, b) => a + b, 0)} completed`}
              />
              <Stat title="Mail" value={counts.mail} details="0 sent · 0 to outbox · 0 failed" />
            </div>
            <section className="rounded-lg border bg-card p-4">
              <h2 className="font-semibold">Background tasks</h2>
              <p className="mt-1 text-sm text-muted-foreground">
                They run on the server; you are told here when they finish, without reloading.
              </p>
              <div className="mt-3 flex flex-wrap items-end gap-4">
                <div className="flex flex-col gap-1">
                  <label htmlFor="duration" className="text-sm font-medium">
                    Report duration (seconds)
                  </label>
                  <input
                    id="duration"
                    type="number"
                    min="0"
                    max="60"
                    step="0.5"
                    defaultValue="15"
                    className="block w-28 rounded-md border border-input bg-card px-2 py-1.5 text-sm shadow-xs"
                  />
                </div>
                <button type="button" className={`${button} bg-primary px-4 py-2`}>
                  Generate report
                </button>
              </div>
            </section>
            <section className="rounded-lg border bg-card p-4">
              <h2 className="mb-3 font-semibold">Last 14 days</h2>
              <Chart days={chart.days} a={chart.completed} b={chart.failed} />
            </section>
            <section className="rounded-lg border bg-card p-4">
              <h2 className="mb-3 font-semibold">Recent activity</h2>
              <ul className="flex flex-col gap-1 text-sm">
                {recent.map((r) => (
                  <li
                    key={r.id}
                    className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 border-b py-1.5 last:border-b-0"
                  >
                    <span className="font-medium text-foreground">{r.action}</span>
                    <span className="text-muted-foreground">by {r.actor}</span>
                    <time dateTime={r.at} className="text-xs tabular-nums text-muted-foreground">
                      {new Date(r.at).toLocaleString("en-GB", { timeZone: "UTC" })}
                    </time>
                  </li>
                ))}
              </ul>
            </section>
            <div className="grid gap-4 md:grid-cols-2">
              <section className="rounded-lg border bg-card p-4">
                <h2 className="mb-3 font-semibold">Your roles</h2>
                <ul className="flex flex-wrap gap-2">
                  <li>
                    <span className="inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset">
                      Super Admin
                    </span>
                  </li>
                </ul>
              </section>
              <section className="rounded-lg border bg-card p-4">
                <h2 className="mb-3 font-semibold">Your permissions</h2>
                <ul className="grid gap-1">
                  {permissions.map((p) => (
                    <li key={p} className="flex items-center gap-2 text-sm text-foreground">
                      <span aria-hidden="true" className="size-1.5 rounded-full bg-primary" />
                      {p}
                    </li>
                  ))}
                </ul>
              </section>
            </div>
          </div>
        </main>
      </div>
      <section
        tabIndex={-1}
        aria-label="Updates"
        aria-live="polite"
        className="pointer-events-none fixed inset-x-2 top-2 z-50 flex flex-col gap-2 rounded-md sm:inset-x-auto sm:top-auto sm:right-4 sm:bottom-4 sm:w-80"
      />
    </div>
  );
}
