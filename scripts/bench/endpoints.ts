import { Webhook } from "standardwebhooks";
import type { Fixtures } from "./fixtures";

export type BenchRequest = {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
};

/** `request()` is called for every request, so a request may differ each time. */
export type Endpoint = {
  name: string;
  expect: number;
  request(): BenchRequest;
  /** Rows it needs, which the earlier figures must not see. */
  prepare?(): Promise<void>;
  settle?(): Promise<void>;
};

const get = (name: string, path: string, cookie?: string): Endpoint => {
  const request: BenchRequest = { method: "GET", path, headers: cookie ? { Cookie: cookie } : {} };
  return { name, expect: 200, request: () => request };
};

/** Reads first and writes last, so what the writes add is not read by the pages of the same size. */
export function endpoints(
  fx: Fixtures,
  webhook: { secret: string; taskIds: () => Promise<string[]> },
  tasksSettled: () => Promise<void>,
): Endpoint[] {
  const c = fx.owner.cookie;
  return [
    get("GET /dashboard", "/dashboard", c),
    get("GET /dashboard/users", "/dashboard/users", c),
    get("GET /dashboard/users?q=person12&status=active", "/dashboard/users?q=person12&status=active", c),
    get("GET /dashboard/users?sort=name&page=300", "/dashboard/users?sort=name&dir=asc&page=300", c),
    get("GET /dashboard/users/:id", `/dashboard/users/${fx.userId}`, c),
    get("GET /dashboard/teams", "/dashboard/teams", c),
    get("GET /dashboard/teams/:id (largest)", `/dashboard/teams/${fx.teamId}`, c),
    get("GET /dashboard/access", "/dashboard/access", c),
    get("GET /dashboard/logs", "/dashboard/logs", c),
    get(
      "GET /dashboard/logs?action=…&actor=person42",
      "/dashboard/logs?action=auth.login.failed&actor=person42",
      c,
    ),
    get("GET /dashboard/logs?person=:id", `/dashboard/logs?person=${fx.userId}`, c),
    get("GET /api/teams/:id/candidates?q=person12", `/api/teams/${fx.teamId}/candidates?q=person12`, c),
    // A lead holding admin within one team (decision 044): the same lists, kept to that team.
    get("GET /dashboard/users (lead within a team)", "/dashboard/users", fx.lead.cookie),
    get(
      "GET /dashboard/users?q=person1&status=active (lead within a team)",
      "/dashboard/users?q=person1&status=active",
      fx.lead.cookie,
    ),
    get(
      "GET /dashboard/users/:id (lead within a team)",
      `/dashboard/users/${fx.lead.memberId}`,
      fx.lead.cookie,
    ),
    get("GET /dashboard/logs (lead within a team)", "/dashboard/logs", fx.lead.cookie),
    get("GET /dashboard/sessions", "/dashboard/sessions", c),
    get("GET /api/sessions?idle=60", "/api/sessions?idle=60", c),
    get("GET /dashboard/sessions (lead within a team)", "/dashboard/sessions", fx.lead.cookie),
    get(
      "GET /api/access/explain?…&target=:id",
      `/api/access/explain?user=${fx.lead.id}&permission=user.update&target=${fx.lead.memberId}`,
      c,
    ),
    get("GET /api/access/who?permission=settings.manage", "/api/access/who?permission=settings.manage", c),
    get("GET /dashboard/settings/security", "/dashboard/settings/security", c),
    get("GET /dashboard/settings/system", "/dashboard/settings/system", c),
    get("GET /dashboard/broadcast", "/dashboard/broadcast", c),
    get("GET /api/ping (bare)", "/api/ping"),
    get("GET /api/tasks", "/api/tasks", c),
    get("GET /api/tasks/:id", `/api/tasks/${fx.taskId}`, c),
    get("GET /api/notifications", "/api/notifications", c),
    { ...postTask(c), settle: tasksSettled },
    completions(webhook),
  ];
}

export function postTask(cookie: string): Endpoint {
  const request: BenchRequest = {
    method: "POST",
    path: "/api/tasks",
    headers: { Cookie: cookie, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin" },
    body: JSON.stringify({ type: "report.generate", payload: { durationMs: 0 } }),
  };
  return { name: "POST /api/tasks (202)", expect: 202, request: () => request };
}

/** Once they are used up the requests are replays (200, nothing changes). */
function completions(webhook: { secret: string; taskIds: () => Promise<string[]> }): Endpoint {
  const signer = new Webhook(webhook.secret);
  let ids: string[] = [];
  let next = 0;
  return {
    name: "POST /api/webhooks/tasks (signed)",
    expect: 200,
    async prepare() {
      ids = await webhook.taskIds();
    },
    request() {
      const id = ids[next++ % ids.length]!;
      const body = JSON.stringify({ taskId: id, status: "completed", result: { bench: true } });
      const at = new Date();
      return {
        method: "POST",
        path: "/api/webhooks/tasks",
        headers: {
          "Content-Type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": signer.sign(id, at, body),
        },
        body,
      };
    },
  };
}
