import { AsyncResource } from "node:async_hooks";

// Node accepts one new connection per event-loop turn, so a turn running every request already read
// left new connections waiting seconds. Requests start in order of arrival, a batch of about
// TURN_TARGET_MS per turn (decisions 030 and 041).

const TURN_TARGET_MS = 10;
const MIN_BATCH = 2;
const MAX_BATCH = 64;

type Work = () => void;
const waiting: Work[] = [];
let pending = 0;
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
  // The last of this turn's batch schedules the next turn's, so a throw below does not stall it.
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

/** `abandon` runs instead when the client has left meanwhile, so abandoned requests do not pile up. */
export function admit(work: Work, gone?: () => boolean, abandon?: Work): void {
  const piece = gone ? () => (gone() ? abandon?.() : work()) : work;
  // Each piece keeps its own request's async context (request id, logger), not the scheduler's.
  const bound = AsyncResource.bind(piece);
  if (waiting.length === 0 && pending < batch()) schedule(bound);
  else waiting.push(bound);
}
