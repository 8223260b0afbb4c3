import { AsyncResource } from "node:async_hooks";

// Node accepts one new connection per turn of its event loop (libuv's accept callback takes one
// socket and returns; strace shows one accept4 per turn, never EAGAIN). A turn that ran the work of
// every request already read (50 connections at ~5 ms each: a quarter of a second) left new
// connections in the kernel's queue for that long each: under 50 connections their first requests
// waited 2-8 s, in the stock React Router server as in ours (issue 23). Here requests start in
// order of arrival, a bounded batch per turn: between two batches the loop polls, takes the next
// connection and reads what has come, so no connection waits behind a whole backlog.
//
// Each request starts in an immediate of its own, so its promise work (node drains microtasks
// between immediates) has finished, or is waiting on I/O, when the next starts: the gap between
// two starts is what the first cost. The batch is sized from those costs to about TURN_TARGET_MS
// a turn: two pages (~5 ms each), a dozen or more cheap API calls, whose throughput one request
// per turn cut by a third (a poll and a timer check per request).

/** About how much work a turn starts. */
const TURN_TARGET_MS = 10;
const MIN_BATCH = 2;
const MAX_BATCH = 64;

type Work = () => void;
const waiting: Work[] = [];
/** Work scheduled for the coming check phase and not yet started. */
let pending = 0;
/** Moving average of what one request's start costs, in ms. */
let cost = 1;
let previousStart: number | undefined;

function batch(): number {
  return Math.min(MAX_BATCH, Math.max(MIN_BATCH, Math.round(TURN_TARGET_MS / cost)));
}

function runOne(work: Work) {
  pending--;
  const now = performance.now();
  // Only starts in one check phase are compared: a gap across a poll is not a request's cost.
  if (previousStart !== undefined) cost += 0.2 * (now - previousStart - cost);
  previousStart = pending > 0 ? now : undefined;
  // The last of this turn's batch schedules the next turn's: a throw below does not stall it.
  if (pending === 0) {
    const n = Math.min(batch(), waiting.length);
    for (let i = 0; i < n; i++) schedule(waiting.shift()!);
  }
  work();
}

function schedule(work: Work) {
  pending++;
  setImmediate(runOne, work);
}

/**
 * Starts `work` in a coming turn of the event loop, in order of arrival, a bounded batch per turn.
 * When its turn comes and `gone()` says the client has left meanwhile, `abandon` runs instead: a
 * request nobody waits for any more is not loaded, rendered or committed (under a backlog, the
 * requests clients gave up on are the ones that would otherwise pile up).
 */
export function admit(work: Work, gone?: () => boolean, abandon?: Work): void {
  const piece = gone ? () => (gone() ? abandon?.() : work()) : work;
  // Each piece keeps its own request's async context (request id, logger), not the scheduler's.
  const bound = AsyncResource.bind(piece);
  if (waiting.length === 0 && pending < batch()) schedule(bound);
  else waiting.push(bound);
}
