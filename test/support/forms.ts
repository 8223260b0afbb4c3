export type FormFields = Record<string, string | number | boolean | readonly (string | number)[] | undefined>;

/** Form fields as a body: an array becomes the field repeated (`roleIds=a&roleIds=b`), undefined is left out. */
export function formBody(fields: FormFields): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, String(one));
  }
  return body;
}

/** The origin the Vitest helpers (test/helpers.ts, test/app-server.ts) serve from. */
const TEST_ORIGIN = "http://localhost:3000";

export type PostFormOptions = {
  cookie?: string;
  /** Where the app is served; TEST_ORIGIN unless given (Playwright passes its baseURL). */
  base?: string;
  /** Defaults to `base`, as a browser on the page sends; set another to test the cross-site refusal. */
  origin?: string;
  headers?: Record<string, string>;
  ip?: string;
};

/**
 * A form POST as a browser on the page sends it: same-origin `Origin` and `Sec-Fetch-Site`, the
 * urlencoded content type, the session cookie. For calling an action directly:
 * `run(() => action(args(formRequest("/dashboard/teams", { name: "Ops" }, { cookie }))))`.
 */
export function formRequest(path: string, fields: FormFields, opts: PostFormOptions = {}): Request {
  const base = opts.base ?? TEST_ORIGIN;
  const origin = opts.origin ?? base;
  const headers = new Headers({
    "Content-Type": "application/x-www-form-urlencoded",
    Origin: origin,
    "Sec-Fetch-Site": origin === base ? "same-origin" : "cross-site",
    ...opts.headers,
  });
  if (opts.cookie) headers.set("Cookie", opts.cookie);
  return new Request(new URL(path, base), { method: "POST", headers, body: formBody(fields) });
}
