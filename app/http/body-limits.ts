// Every route's request-body limit, in one place: read by server.ts (refuses before the app sees
// a byte), by the app's readers (the same limits under any other server) and by the tests.

export const KB = 1024;

/** A form post: a few fields; the biggest real one (a role's permission checkboxes) is far below. */
export const FORM_BODY_LIMIT = 64 * KB;

/** Users → Import: the CSV file and a few fields. */
export const IMPORT_UPLOAD_LIMIT = 8 * 1024 * KB;

const LIMITS: Record<string, number> = {
  "/dashboard/users/import": IMPORT_UPLOAD_LIMIT + 64 * KB,
  "/api/tasks": 64 * KB,
  "/api/webhooks/tasks": 1024 * KB, // a finished task's result travels in the signed body
  "/api/mail": 4 * KB,
};

/**
 * React Router's single-fetch posts to `/path.data` (`/path/_.data` for `/path/`, `/_.data` or
 * `/_root.data` for `/`: future.v8_trailingSlashAwareDataRequests); the limit is the page's.
 */
function routePath(pathname: string): string {
  const path = pathname.replace(/(?:\/_)?\.data$/, "").replace(/\/+$/, "");
  return path === "" || path === "/_root" ? "/" : path;
}

/** SCIM (app/directory): a group pushed with its members is one body, thousands of ids long. */
export const SCIM_BODY_LIMIT = 2048 * KB;

export function bodyLimitFor(pathname: string): number {
  if (pathname.startsWith("/scim/")) return SCIM_BODY_LIMIT;
  return LIMITS[routePath(pathname)] ?? FORM_BODY_LIMIT;
}

export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

export const PAYLOAD_TOO_LARGE_CODE = "payload_too_large";
