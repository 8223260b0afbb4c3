// Reset, invitation and verification links carry their secret in the query string; a request log
// that kept it would hand a working link (and its role) to whoever reads the logs.

const SENSITIVE_ANYWHERE = /token|secret|passw|signature|api[-_]?key|credential/;
const SENSITIVE_WORD = /(^|[-_.\s])(code|key|sig|auth|otp)$/;

function sensitive(rawName: string): boolean {
  let name: string;
  try {
    name = decodeURIComponent(rawName.replace(/\+/g, " "));
  } catch {
    return true; // cannot tell what it is, so it does not get logged
  }
  name = name.trim().toLowerCase();
  return SENSITIVE_ANYWHERE.test(name) || SENSITIVE_WORD.test(name);
}

/** A request URL fit for the log: sensitive query values replaced, the fragment dropped. */
export function redactUrl(url: string): string {
  const hash = url.indexOf("#");
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const q = withoutFragment.indexOf("?");
  if (q === -1) return withoutFragment;
  const query = withoutFragment
    .slice(q + 1)
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      if (eq === -1) return part;
      const name = part.slice(0, eq);
      return sensitive(name) ? `${name}=[redacted]` : part;
    })
    .join("&");
  return `${withoutFragment.slice(0, q)}?${query}`;
}
