import { createCookieSessionStorage } from "react-router";
import { secureCookies, sessionSecrets } from "../env.server";

export type Toast = {
  kind: "success" | "error" | "warning" | "info";
  message: string;
  /** The token of the Undo the toast offers (app/users/undo.server.ts): it names nothing by itself. */
  undo?: string;
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
  session.flash("toast", toast);
  return flash().commitSession(session);
}

/** Reads and spends the pending toast; send the returned header back to clear it. */
export async function readToast(
  request: Request,
): Promise<{ toast: Toast | null; setCookie: string | null }> {
  const header = request.headers.get("Cookie");
  if (!header?.includes("__flash=")) return { toast: null, setCookie: null };
  const session = await flash().getSession(header);
  const toast = session.get("toast") ?? null;
  return { toast, setCookie: await flash().commitSession(session) };
}
