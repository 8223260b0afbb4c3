import { randomUUID } from "node:crypto";
import { createCookieSessionStorage } from "react-router";
import { secureCookies, sessionSecrets } from "../env.server";

export type Toast = {
  kind: "success" | "error" | "warning" | "info";
  message: string;
  /** The token of the Undo the toast offers (app/users/undo.server.ts): it names nothing by itself. */
  undo?: string;
  /**
   * Set when the cookie is written: two page loads that read the cookie before either cleared it
   * (a redirect's load beside a revalidation) show the toast once (app/components/toaster.tsx).
   */
  key?: string;
};

let storage:
  | ReturnType<typeof createCookieSessionStorage<Record<string, never>, { toast: Toast }>>
  | undefined;
function flash() {
  if (!storage) {
    storage = createCookieSessionStorage<Record<string, never>, { toast: Toast }>({
      cookie: {
        name: "__flash",
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: secureCookies(),
        secrets: sessionSecrets(),
      },
    });
  }
  return storage;
}

/** A Set-Cookie header carrying a toast to the next page the browser renders. */
export async function toastCookie(toast: Toast): Promise<string> {
  const session = await flash().getSession();
  session.flash("toast", { ...toast, key: toast.key ?? randomUUID() });
  return flash().commitSession(session);
}

/** Reads and spends the pending toast (its `key` apart); send the returned header back to clear it. */
export async function readToast(
  request: Request,
): Promise<{ toast: Toast | null; key: string | null; setCookie: string | null }> {
  const header = request.headers.get("Cookie");
  if (!header?.includes("__flash=")) return { toast: null, key: null, setCookie: null };
  const session = await flash().getSession(header);
  const stored = session.get("toast") ?? null;
  if (!stored) return { toast: null, key: null, setCookie: await flash().commitSession(session) };
  const { key, ...toast } = stored;
  return { toast, key: key ?? null, setCookie: await flash().commitSession(session) };
}
