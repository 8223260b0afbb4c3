import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seed } from "../app/server/seed.server";
import { createDb } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { type Balancer, balancersAvailable, startHaproxy, startNginx } from "./cluster/balancers";
import { cleanUpEverything } from "./cluster/cleanup";
import { EventStreamClient } from "./cluster/event-stream";
import { createInstances } from "./cluster/instances";
import { startReaders, startTaskUsers } from "./cluster/load";
import { RequestLog } from "./cluster/requests";
import { PASSWORD, SEED_ENV } from "./database-template";
import { type FakePostmark, startFakePostmark } from "./fake-postmark";
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  throwawayPostgresAvailable,
} from "./support/throwaway-postgres";
import { createUser } from "./support/users";

// Three production instances on a PostgreSQL of the test's own, behind haproxy and nginx running
// the configurations in docs/deploy/, under a bounded load while one instance is killed, all
// three are restarted in turn and the database restarts (docs/deploy/README.md). It counts every
// request, task and task-completed event and prints the counts. In `npm test`'s PostgreSQL pass,
// after its build (TWO_INSTANCE_BUILD_DIR); CLUSTER_READY_PATH=/healthz measures a server
// without /readyz.
const BUILD_DIR = resolve(process.env.TWO_INSTANCE_BUILD_DIR ?? "build");
const READY_PATH = process.env.CLUSTER_READY_PATH ?? "/readyz";
const POSTGRES_PORT = Number(process.env.CLUSTER_POSTGRES_PORT ?? 25433);
const PORT_BASE = process.env.CLUSTER_PORT_BASE ? Number(process.env.CLUSTER_PORT_BASE) : undefined;
// The load CI runs (about 40 requests a second, 6 people starting tasks); the CLUSTER_* variables
// raise it by hand, e.g. to the load of docs/deploy/README.md's reproduction.
const TASK_MS = Number(process.env.CLUSTER_TASK_MS ?? 1_500);
const TASK_USERS = Number(process.env.CLUSTER_TASK_USERS ?? 6);
const READERS = Number(process.env.CLUSTER_READERS ?? 10);
const READER_RATE = Number(process.env.CLUSTER_READER_RATE ?? 4);
/** Event streams held open beside the task people's own, by the readers' sessions. */
const IDLE_STREAMS = Number(process.env.CLUSTER_IDLE_STREAMS ?? 0);
const SETTLE_MS = 30_000;
const WHOLE_TEST_MS = 180_000;

const onPostgres = process.env.TEST_DATABASE === "postgres";
const lacking = onPostgres
  ? [
      existsSync(resolve(BUILD_DIR, "server.js")) ? "" : `the build (${BUILD_DIR}/server.js: npm run build)`,
      throwawayPostgresAvailable() ? "" : "PostgreSQL's initdb (/usr/lib/postgresql/*/bin)",
      balancersAvailable() ? "" : "haproxy and nginx (.ci/run installs them)",
    ].filter(Boolean)
  : [];
// Skipped on a developer's machine that lacks a piece; in CI a missing piece fails the run
// rather than passing it unseen.
const skipped = !onPostgres || (lacking.length > 0 && !process.env.CI);

/** Whether `port` can be listened on at 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const srv = createServer()
      .once("error", () => done(false))
      .listen(port, "127.0.0.1", () => srv.close(() => done(true)));
  });
}

/**
 * A free port below Linux's ephemeral range (32768-60999): an instance restarted on its port must
 * find it free, and a port in that range can meanwhile be the local end of some outgoing
 * connection (seen in CI with the throwaway PostgreSQL's port: "Address already in use").
 */
const taken = new Set<number>();
async function freePort(n: number): Promise<number> {
  if (PORT_BASE !== undefined) return PORT_BASE + n;
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    taken.add(port);
    if (await canListen(port)) return port;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Straight to an instance, not through a balancer: sessions live in the database, so the cookie
 * works on every instance, and the sign-in is no part of what the load measures.
 */
async function signIn(instance: { url: string; name: string }, email: string): Promise<string> {
  const res = await fetch(`${instance.url}/login`, {
    method: "POST",
    body: new URLSearchParams({ email, password: PASSWORD }),
    redirect: "manual",
  });
  if (res.status !== 302)
    throw new Error(`sign-in of ${email} on ${instance.name}: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

describe.skipIf(skipped)("a cluster of three instances behind haproxy and nginx", () => {
  const began = Date.now();
  let setupMs = 0;
  let postgres: ThrowawayPostgres;
  let postmark: FakePostmark;
  let cluster: ReturnType<typeof createInstances>;
  let haproxy: Balancer;
  let nginx: Balancer;
  const people: { email: string; name: string }[] = [];
  // One per try: the retry below counts its own requests and its own time, not the first try's.
  let log = new RequestLog();
  /** Tasks of earlier tries, still in the database, that this try did not create. */
  const earlierTasks = new Set<string>();

  beforeAll(async () => {
    if (lacking.length) throw new Error(`the cluster test needs ${lacking.join(", ")}`);
    postgres = await startThrowawayPostgres({ port: POSTGRES_PORT });
    const db = createDb(postgres.url);
    try {
      await migrateToLatest(db);
      await seed(db, SEED_ENV);
      for (let i = 0; i < TASK_USERS + 2; i++) {
        const u = await createUser(db, { roles: ["user"], password: PASSWORD, name: `Person ${i + 1}` });
        people.push({
          email: u.email,
          name: i < TASK_USERS ? `tasks${i + 1}` : `reader${i - TASK_USERS + 1}`,
        });
      }
    } finally {
      await db.destroy();
    }
    postmark = await startFakePostmark();
    const [hp, np, ...apps] = await Promise.all([0, 1, 2, 3, 4].map(freePort));
    cluster = createInstances({
      buildDir: BUILD_DIR,
      ports: apps,
      readyPath: READY_PATH,
      onKill: () => log.killed(),
      env: {
        DATABASE_URL: postgres.url,
        DATABASE_POOL_SIZE: "5",
        BASE_URL: `http://127.0.0.1:${hp}`,
        ALLOWED_HOSTS: [np, ...apps].map((p) => `127.0.0.1:${p}`).join(","),
        TRUST_PROXY: "1",
        SESSION_SECRET: "cluster-test-session-secret-0123456789",
        TASK_WEBHOOK_SECRET: "whsec_Y2x1c3Rlci10ZXN0LXdlYmhvb2stc2VjcmV0LTEyMzQ=",
        MAIL_API_URL: postmark.url,
        MAIL_API_KEY: "cluster-test",
        TASK_DEMO_DURATION_MS: String(TASK_MS),
        RATE_LIMIT_LOGIN_PER_IP: "1000",
        LOG_LEVEL: process.env.CLUSTER_LOG_LEVEL ?? "warn",
      },
    });
    await cluster.startAll();
    const vars = { PUBLIC_HOST: "127.0.0.1", APPS: apps.map((p) => `127.0.0.1:${p}`) };
    [haproxy, nginx] = await Promise.all([
      startHaproxy({ ...vars, LISTEN_PORT: hp! }, READY_PATH),
      startNginx({ ...vars, LISTEN_PORT: np! }, READY_PATH),
    ]);
    setupMs = Date.now() - began;
  }, 120_000);

  afterAll(async () => {
    await cluster?.stopAll().catch(() => undefined);
    await postmark?.close();
    await postgres?.stop();
    cleanUpEverything();
  }, 60_000);

  it(
    "loses no request, task or task completion through kill -9, a rolling restart and a database restart",
    async () => {
      log = new RequestLog();
      const tryBegan = Date.now();
      const viaOf = (i: number) => (i % 2 === 0 ? haproxy : nginx);
      // Half of everything goes through each balancer: by default 6 people starting tasks (3 each)
      // and 10 readers on 2 sessions (5 each), about 40 requests a second in all.
      const taskPeople = await Promise.all(
        people.slice(0, TASK_USERS).map(async (p, i) => ({
          name: p.name,
          via: viaOf(i),
          cookie: await signIn(cluster.instances[i % 3]!, p.email),
        })),
      );
      const readerCookies = await Promise.all(
        people.slice(TASK_USERS).map((p, i) => signIn(cluster.instances[i % 3]!, p.email)),
      );
      const readers = Array.from({ length: READERS }, (_, i) => ({
        via: viaOf(i),
        cookie: readerCookies[i % 2]!,
      }));
      const stopReaders = startReaders(log, readers, READER_RATE);
      const idleStreams = Array.from({ length: IDLE_STREAMS }, (_, i) => {
        const client = new EventStreamClient(viaOf(i).url, readerCookies[i % 2]!, () => {});
        client.start();
        return client;
      });
      const tasks = startTaskUsers(log, taskPeople, { durationMs: TASK_MS, waitMs: 20_000 });
      const notes: string[] = [`setup (database, 3 instances, balancers) took ${setupMs} ms`];
      const [app1, app2, app3] = cluster.instances;

      await sleep(6_000);
      log.enter("kill -9");
      await cluster.crash(app1!, 2_000);
      await sleep(5_000);

      log.enter("rolling restart");
      for (const instance of [app1!, app2!, app3!]) {
        const r = await cluster.restart(instance, 30_000);
        notes.push(
          `${instance.name} stopped ${r.stopMs} ms after SIGTERM (exit ${r.exitCode}${r.killedAfterTimeout ? ", killed after 30 s" : ""})`,
        );
        await sleep(2_500); // the balancer sees it ready again (rise 2 × inter 1 s)
      }

      log.enter("database restart");
      const down = Date.now();
      await postgres.restart({ downMs: 2_000 });
      const back = Date.now();
      try {
        await cluster.allAnswering(READY_PATH, 20_000);
        notes.push(
          `database down ${back - down} ms; every instance ready ${Date.now() - back} ms after it was back`,
        );
      } catch (error) {
        notes.push(
          `not every instance ready 20 s after the database came back: ${(error as Error).message.split("\n")[0]}`,
        );
      }
      await sleep(6_000);

      log.enter("settle");
      await Promise.all([stopReaders(), tasks.stopCreating()]);
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      const statuses = async () =>
        new Map(
          (await client.query<{ id: string; status: string }>("select id, status from task")).rows.map(
            (r) => [r.id, r.status],
          ),
        );
      const settleStart = Date.now();
      let status = await statuses();
      while (Date.now() - settleStart < SETTLE_MS) {
        const open = tasks.created.filter(
          (t) =>
            !["completed", "failed"].includes(status.get(t.taskId) ?? "") || tasks.delivered(t.taskId) === 0,
        );
        if (open.length === 0) break;
        await sleep(500);
        status = await statuses();
      }
      await sleep(500); // a duplicate right behind the first delivery
      await tasks.closeStreams();
      await Promise.all(idleStreams.map((c) => c.stop()));
      // Every task has finished and none is being started: a job still locked is locked to a worker
      // that died with it.
      let lockedJobs: number | undefined;
      try {
        const { rows } = await client.query(
          "select count(*)::int as n from graphile_worker._private_jobs where locked_at is not null",
        );
        lockedJobs = rows[0].n;
      } catch {
        // Another queue version keeps its jobs elsewhere: the count is left out.
      }
      // Why tasks failed, most frequent first: "The server stopped before this task finished ×4".
      const failureReasons = new Map<string, number>();
      for (const { result } of (await client.query("select result from task where status = 'failed'")).rows) {
        const parsed = typeof result === "string" ? JSON.parse(result) : result;
        const reason = String(parsed?.error ?? JSON.stringify(parsed)).slice(0, 100);
        failureReasons.set(reason, (failureReasons.get(reason) ?? 0) + 1);
      }
      // For each lost completion, what the log holds of it and what its owner's stream saw.
      const lostDetails: string[] = [];
      for (const t of tasks.created.filter((c) => tasks.delivered(c.taskId) === 0).slice(0, 3)) {
        const task = (
          await client.query<{ completed_at: string | null; attempt: number }>(
            "select completed_at, attempt from task where id = $1",
            [t.taskId],
          )
        ).rows[0];
        const events = (
          await client.query<{ id: string }>(
            "select id from event_log where type = 'task-completed' and data like $1",
            [`%${t.taskId}%`],
          )
        ).rows.map((r) => Number(r.id));
        const stream = tasks.streams.find((s) => s.user.name === t.owner)!.client;
        const id = events[0];
        const near =
          id === undefined
            ? []
            : stream.ids
                .filter((x) => Math.abs(Number(x.id) - id) <= 40)
                .map((x) => `${x.id}(${x.type} ${log.when(x.at)})`);
        lostDetails.push(
          `  lost ${t.taskId}: completed ${task?.completed_at ? log.when(Date.parse(task.completed_at)) : "-"} (attempt ${task?.attempt}), its event id ${events.join(",") || "none in the log"}; stream opens: ${stream.opens.map((o) => `${log.when(o.at)} from ${o.resumedFrom ?? "newest"}`).join(", ")}; ids received near it: ${near.join(" ") || "-"}`,
        );
      }
      await client.end();

      // The counts.
      const created = tasks.created;
      const createdIds = new Set(created.map((t) => t.taskId));
      const by = (s: string) => created.filter((t) => status.get(t.taskId) === s);
      const completed = by("completed");
      const failedTasks = by("failed");
      const stuck = created.filter((t) => !["completed", "failed"].includes(status.get(t.taskId) ?? ""));
      const unanswered = [...status.keys()].filter((id) => !createdIds.has(id) && !earlierTasks.has(id));
      for (const id of status.keys()) earlierTasks.add(id);
      const missing = created.filter((t) => tasks.delivered(t.taskId) === 0);
      const duplicated = created.filter((t) => tasks.delivered(t.taskId) > 1);
      const foreign = [...tasks.deliveries.keys()].filter((k) => !createdIds.has(k.split("\t")[1]!)).length;
      const requests = log.total();
      const exits = cluster.unexpectedExits;
      const elapsed = setupMs + (Date.now() - tryBegan);
      const streamLines = tasks.streams.map(
        ({ user, client: s }) =>
          `  ${user.name} via ${user.via.name}: ${s.opened} streams opened, ${s.withId} events with an id, ${s.failedAttempts.length} failed attempts${s.failedAttempts.length ? ` (${[...new Set(s.failedAttempts)].slice(0, 3).join("; ")})` : ""}`,
      );
      const phaseOf = (list: { phase: string }[]) => {
        const n = new Map<string, number>();
        for (const t of list) n.set(t.phase, (n.get(t.phase) ?? 0) + 1);
        return [...n].map(([p, c]) => `${p} ${c}`).join(", ") || "-";
      };
      const report = [
        "",
        `cluster test (${READY_PATH} checks, build ${BUILD_DIR}): ${(elapsed / 1000).toFixed(1)} s; load: ${TASK_USERS} people starting ${TASK_MS} ms tasks, ${READERS} readers at ${READER_RATE}/s, ${IDLE_STREAMS} more open streams`,
        `requests: ${requests.sent} sent, ${requests.failed} failed, ${requests.cut} cut by the kill -9 (in flight on the killed instance, not counted as failed), ${requests.deferred} deferred by 503 + Retry-After, ${requests.resent} GETs resent once after their connection closed unanswered (as browsers do)`,
        log.table(),
        `tasks: ${created.length} created (202), ${completed.length} completed, ${failedTasks.length} failed, ${stuck.length} stuck (${stuck.map((t) => status.get(t.taskId) ?? "absent").join(", ") || "-"}), ${unanswered.length} in the database whose POST got no 202`,
        `  failed by phase of creation: ${phaseOf(failedTasks)}; stuck: ${phaseOf(stuck)}`,
        `  why they failed: ${
          [...failureReasons]
            .sort((a, b) => b[1] - a[1])
            .map(([reason, n]) => `"${reason}" ×${n}`)
            .join(", ") || "-"
        }`,
        `completions to their owners: ${created.length - missing.length - duplicated.length} exactly once, ${missing.length} missing (${phaseOf(missing)}), ${duplicated.length} duplicated, ${foreign} events for tasks the stream's owner did not create`,
        ...missing
          .slice(0, 5)
          .map(
            (t) =>
              `  missing: task ${t.taskId} of ${t.owner} (via ${taskPeople.find((p) => p.name === t.owner)?.via.name}), created in ${t.phase}, ${status.get(t.taskId) ?? "absent"}`,
          ),
        ...lostDetails,
        `queue jobs still locked: ${lockedJobs ?? "n/a (no graphile_worker._private_jobs)"}`,
        `event streams:\n${streamLines.join("\n")}`,
        `instances that exited on their own: ${exits.length}${exits.map((e) => `\n  ${e.instance} exit ${e.code ?? e.signal} at +${((e.at - began) / 1000).toFixed(1)}s: ${e.tail.split("\n").filter(Boolean).slice(-3).join(" | ").slice(0, 400)}`).join("")}`,
        `instances not ready when they should be: ${cluster.notReady.length}${cluster.notReady.map((n) => `\n  ${n}`).join("")}`,
        ...notes.map((n) => `note: ${n}`),
        ...log.cut.map((f) => `cut by the kill -9: ${f.at} via ${f.via}: ${f.request} → ${f.reason}`),
        log.failures.length === 0
          ? "failed requests: none"
          : `first failed requests:${[...log.failures]
              .sort((a, b) => Number.parseFloat(a.at.slice(1)) - Number.parseFloat(b.at.slice(1)))
              .slice(0, 15)
              .map((f) => `\n  ${f.at} ${f.phase} via ${f.via}: ${f.request} → ${f.reason}`)
              .join("")}`,
        // What the balancers logged of their upstreams (a 502's cause: refused, reset, closed).
        ...[haproxy, nginx].flatMap((b) =>
          b.output
            .join("")
            .split("\n")
            .filter((line) => /upstream|backend|server .* is (DOWN|UP)/i.test(line))
            .slice(-8)
            .map((line) => `${b.name} said: ${line.slice(0, 300)}`),
        ),
      ].join("\n");
      // Printed either way: a failed first try that its retry passes must still show in the log.
      if (requests.failed + missing.length + duplicated.length + exits.length === 0) console.log(report);
      else console.error(`cluster test, this try lost something:\n${report}`);

      expect(
        {
          failedRequests: requests.failed,
          tasksNotCompleted: created.length - completed.length,
          completionsMissing: missing.length,
          completionsDuplicated: duplicated.length,
          unexpectedExits: exits.length,
          notReady: cluster.notReady.length,
          jobsStillLocked: lockedJobs ?? 0,
          underThreeMinutes: elapsed < WHOLE_TEST_MS,
        },
        report,
      ).toEqual({
        failedRequests: 0,
        tasksNotCompleted: 0,
        completionsMissing: 0,
        completionsDuplicated: 0,
        unexpectedExits: 0,
        notReady: 0,
        jobsStillLocked: 0,
        underThreeMinutes: true,
      });
      // One retry on the same cluster: in 1 of 4 clean runs (2026-11-28) one completion created
      // during the rolling restart never reached its owner's stream, and in 1 of 3 (2026-11-29) a
      // POST sent through haproxy just after the kill -9 had its connection closed unanswered (a
      // POST a balancer sent to the dead instance in the instant after the kill counts as cut since
      // 2026-11-29, test/cluster/requests.ts). The lost completion was an instance giving out its
      // own event before another's lower id, which the stream then skipped (fixed 2026-11-29,
      // app/events/postgres-bus.server.ts). The retry stays for what is not found yet; the report
      // above shows a first try that failed. The retry is judged on its own requests and time (until 2026-11-29 it inherited
      // the first try's counts, so it could never pass).
    },
    { timeout: 240_000, retry: 1 },
  );
});
