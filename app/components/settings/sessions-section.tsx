import { formatDateTime } from "../format";
import { Button } from "../ui/button";
import { Card } from "../ui/card";
import { useSection } from "./use-section";

type SessionRow = {
  id: string;
  current: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string;
};

export function SessionsSection({ sessions }: { sessions: SessionRow[] }) {
  const one = useSection("revoke-session");
  const others = useSection("revoke-others");
  const hasOthers = sessions.some((s) => !s.current);
  return (
    <Card
      title="Active sessions"
      actions={
        hasOthers ? (
          <others.fetcher.Form method="post">
            <input type="hidden" name="intent" value="revoke-others" />
            <Button variant="secondary" pending={others.pending}>
              Sign out everywhere else
            </Button>
          </others.fetcher.Form>
        ) : null
      }
    >
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="sessions">
        {sessions.map((s) => (
          <li key={s.id} className="flex items-center justify-between gap-3 py-2 text-sm">
            <div className="min-w-0">
              <p className="truncate font-medium">
                {s.userAgent ?? "Unknown browser"}
                {s.current ? (
                  <span className="ml-2 rounded bg-emerald-100 px-2 py-0.5 text-xs text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100">
                    this session
                  </span>
                ) : null}
              </p>
              <p className="text-slate-600 dark:text-slate-400">
                {s.ip ?? "unknown address"} · signed in {formatDateTime(s.createdAt)} · last seen{" "}
                {formatDateTime(s.lastSeenAt)}
              </p>
            </div>
            {s.current ? null : (
              <one.fetcher.Form method="post">
                <input type="hidden" name="intent" value="revoke-session" />
                <input type="hidden" name="session" value={s.id} />
                <Button
                  variant="secondary"
                  aria-label={`Sign out the session from ${s.ip ?? "unknown address"}`}
                >
                  Sign out
                </Button>
              </one.fetcher.Form>
            )}
          </li>
        ))}
      </ul>
      {one.status}
      {others.status}
    </Card>
  );
}
