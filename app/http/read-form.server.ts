import { BodyTooLarge, readBodyBytes } from "./body.server";
import { bodyLimitFor, PAYLOAD_TOO_LARGE_CODE } from "./body-limits";
import { refusal } from "./responses";

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

const CODES = { 400: "invalid_request", 413: PAYLOAD_TOO_LARGE_CODE, 415: "unsupported_media_type" };

function refuse(status: 400 | 413 | 415, message: string): never {
  throw refusal(status, CODES[status], { message });
}

// One parse per request: whoever asks first (the access gate, app/auth/guard.server.ts, or the
// action) parses, everyone after gets the same FormData. A gate that decides on its own reading of
// the bytes can disagree with the action about a byte order mark, a repeated key, a charset or a
// multipart body; one parse leaves nothing to disagree about. Keyed by the Request object, which
// middleware and action share (future.v8_passThroughRequests, react-router.config.ts); a reader
// handed another Request for the same body finds the body used and answers 400, never a second
// reading.
const parsed = new WeakMap<Request, Promise<FormData>>();

/**
 * Every page action's way to its form: only a form body is accepted (anything else is the
 * client's mistake, 415, not our 500), and never more than the route's limit (the same limit
 * server.ts enforces, kept here for when the app runs under another server). Parsed once per
 * request: every later call returns the same form (or the same refusal).
 */
export function readForm(request: Request): Promise<FormData> {
  let form = parsed.get(request);
  if (!form) {
    form = parseForm(request);
    parsed.set(request, form);
  }
  return form;
}

async function parseForm(request: Request): Promise<FormData> {
  const type = request.headers.get("Content-Type") ?? "";
  const mediaType = type.split(";")[0]!.trim().toLowerCase();
  if (!FORM_TYPES.includes(mediaType))
    refuse(415, "This form accepts application/x-www-form-urlencoded or multipart/form-data only.");

  const limit = bodyLimitFor(new URL(request.url).pathname);
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBodyBytes(request, limit);
  } catch (error) {
    if (error instanceof BodyTooLarge) refuse(413, `The form is too large (at most ${limit} bytes).`);
    refuse(400, "The form could not be read."); // the client went away mid-body
  }
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "Content-Type": type } }).formData();
  } catch {
    return refuse(400, "The form could not be read.");
  }
  // Nobody types NUL; PostgreSQL text cannot hold it (a 500 there, stored silently on SQLite), so
  // it is refused here for every form alike. Uploaded files keep their bytes.
  for (const [name, value] of form) {
    if (name.includes("\u0000") || (typeof value === "string" && value.includes("\u0000")))
      refuse(400, "Text in a form must not contain NUL characters.");
  }
  return form;
}
