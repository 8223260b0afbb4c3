import { db } from "../../app/db.server";
import { systemBus } from "../../app/events/bus.server";
import { SYSTEM_EVENT_CHANNEL, type SystemEvent } from "../../app/events/event-types";
import { action } from "../../app/routes/dashboard.broadcast";
import { args, run } from "../helpers";
import { formRequest } from "./forms";

// What the broadcast tests share (app/notifications/broadcast.test.ts, audience.test.ts): the
// composer's form post, a role's id, and the live events each user receives.

/** The broadcast composer's form, posted as `cookie`'s holder. */
export function postBroadcast(cookie: string | undefined, values: Record<string, string | string[]>) {
  const req = formRequest("/dashboard/broadcast", values, { cookie });
  return run(() => action(args(req)));
}

export async function roleId(name: string) {
  return (await db().selectFrom("role").select("id").where("name", "=", name).executeTakeFirstOrThrow()).id;
}

/** Records the system events each of `userIds` receives until `stop`. */
export function listen(userIds: string[]) {
  const seen: Record<string, SystemEvent[]> = {};
  const stops = userIds.map((id) => {
    seen[id] = [];
    return systemBus().subscribe(SYSTEM_EVENT_CHANNEL, id, (e) => seen[id]!.push(e));
  });
  return {
    seen,
    stop: () => {
      for (const s of stops) s();
    },
  };
}
