import { afterAll, beforeAll, beforeEach } from "vitest";
import { resetEnvCache } from "../app/env.server";
import { clearSystemConfigCache } from "../app/system-settings/system-config.server";
import { type FakePostmark, startFakePostmark } from "./fake-postmark";

export const TEST_MAIL_KEY = "env-server-token-0000";

/**
 * Starts the fake Postmark server for this test file and points the app at it.
 * `withKey: false` leaves MAIL_API_KEY unset (the outbox applies until Settings holds a key).
 */
export function withFakePostmark(opts: { withKey?: boolean } = {}) {
  const handle = { current: undefined as FakePostmark | undefined };
  beforeAll(async () => {
    handle.current = await startFakePostmark();
    process.env.MAIL_API_URL = handle.current.url;
    if (opts.withKey === false) delete process.env.MAIL_API_KEY;
    else process.env.MAIL_API_KEY = TEST_MAIL_KEY;
    resetEnvCache();
    clearSystemConfigCache();
  });
  beforeEach(() => handle.current?.clear());
  afterAll(async () => {
    await handle.current?.close();
    delete process.env.MAIL_API_URL;
    delete process.env.MAIL_API_KEY;
    resetEnvCache();
  });
  return {
    get fake(): FakePostmark {
      if (!handle.current) throw new Error("fake Postmark not started yet");
      return handle.current;
    },
  };
}

/** The first link in a plain-text body that points at `path`. */
export function linkIn(text: string | undefined, path: string): string {
  const match = text?.match(new RegExp(`https?://\\S*${path.replace(/[/?]/g, "\\$&")}\\S*`));
  if (!match) throw new Error(`no ${path} link in: ${text}`);
  return match[0];
}
