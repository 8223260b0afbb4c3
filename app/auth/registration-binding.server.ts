import { createHash, randomBytes } from "node:crypto";
import { createCookie } from "react-router";
import { secureCookies } from "../env.server";

// Ties a registration to the browser that made it. When two browsers register one unverified
// address, the mailbox owner cannot tell their link from the other's, so a link then applies the
// carried password only in the browser that registered it (registration.server.ts).

const cookie = () =>
  createCookie("__registration", {
    httpOnly: true,
    sameSite: "lax",
    secure: secureCookies(),
    path: "/",
    maxAge: 24 * 60 * 60, // a verification link's lifetime
  });

const hash = (value: string) => createHash("sha256").update(value).digest("hex");

async function cookieValue(request: Request): Promise<string | null> {
  const value = await cookie().parse(request.headers.get("Cookie"));
  return typeof value === "string" && /^[\w-]{43}$/.test(value) ? value : null;
}

/** The browser's binding (kept if it has one, so registering twice is not a contest) and its cookie. */
export async function registrationBinding(request: Request): Promise<{ hash: string; setCookie: string }> {
  const value = (await cookieValue(request)) ?? randomBytes(32).toString("base64url");
  return { hash: hash(value), setCookie: await cookie().serialize(value) };
}

/** The hash of the binding the request's browser holds, if any. */
export async function bindingOf(request: Request): Promise<string | null> {
  const value = await cookieValue(request);
  return value ? hash(value) : null;
}
