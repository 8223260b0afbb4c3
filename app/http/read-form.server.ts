import { BodyTooLarge, readBodyBytes } from "./body.server";
import { bodyLimitFor, PAYLOAD_TOO_LARGE_CODE } from "./body-limits";
import { refusal } from "./responses";

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

const CODES = { 400: "invalid_request", 413: PAYLOAD_TOO_LARGE_CODE, 415: "unsupported_media_type" };

function refuse(status: 400 | 413 | 415, message: string): never {
  throw refusal(status, CODES[status], { message });
}

// One parse per request, shared by the access gate and the action, so they cannot disagree about
// the body; keyed by the Request object, which middleware and action share (v8_passThroughRequests).
const parsed = new WeakMap<Request, Promise<FormData>>();

/** Only a form body (415 otherwise), within the route's limit, for when the app runs under another server too. */
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
  // PostgreSQL text cannot hold NUL, so it is refused for every form alike; files keep their bytes.
  for (const [name, value] of form) {
    if (name.includes("\u0000") || (typeof value === "string" && value.includes("\u0000")))
      refuse(400, "Text in a form must not contain NUL characters.");
  }
  return form;
}
