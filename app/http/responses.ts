// The JSON error shape of every /api route: {"error": CODE, ...details}.
export function apiError(
  status: number,
  error: string,
  extra: Record<string, unknown> = {},
  init?: ResponseInit,
) {
  return Response.json({ error, ...extra }, { ...init, status });
}

/** Accepts same-origin absolute paths only ("/x", never "//x" or "https://x"). */
export function safeRedirectPath(value: unknown, fallback = "/dashboard"): string {
  if (
    typeof value !== "string" ||
    !value.startsWith("/") ||
    value.startsWith("//") ||
    value.startsWith("/\\")
  ) {
    return fallback;
  }
  try {
    const url = new URL(value, "http://internal.invalid");
    if (url.origin !== "http://internal.invalid") return fallback;
    const path = url.pathname + url.search + url.hash;
    // Normalising "/.//x" yields "//x", which a browser reads as another host: check again.
    return path.startsWith("//") || path.startsWith("/\\") ? fallback : path;
  } catch {
    return fallback;
  }
}
