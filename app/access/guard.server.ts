import { data, type RouterContextProvider, redirect } from "react-router";
import { getSessionUser, type SessionUser } from "../auth/session.server";
import { isApiRequest } from "../http/request-info.server";
import { apiError } from "../http/responses";
import { can } from "./check";
import type { PermissionKey } from "./permissions";

type Args = { request: Request; context?: Readonly<RouterContextProvider> };

export type ForbiddenData = { kind: "forbidden"; permission: string | null; message: string };

function unauthorized(request: Request): never {
  if (isApiRequest(request)) throw apiError(401, "unauthorized");
  const url = new URL(request.url);
  const back = url.pathname + url.search;
  throw redirect(`/login?${new URLSearchParams({ redirectTo: back })}`);
}

function forbidden(request: Request, permission: string | null): never {
  if (isApiRequest(request)) {
    throw apiError(403, "forbidden", permission ? { permission } : { role: "super_admin" });
  }
  throw data<ForbiddenData>(
    {
      kind: "forbidden",
      permission,
      message: permission
        ? `Your account does not have the "${permission}" permission needed for this page.`
        : "Only a super admin can do this.",
    },
    { status: 403 },
  );
}

/** 401 (API) or a redirect to /login (pages) when nobody is signed in. */
export async function requireUser(args: Args): Promise<SessionUser> {
  const user = await getSessionUser(args);
  if (!user) unauthorized(args.request);
  return user;
}

/** The signed-in user, who must hold `permission` (super_admin holds all). */
export async function requirePermission(args: Args, permission: PermissionKey): Promise<SessionUser> {
  const user = await requireUser(args);
  if (!can(user, permission)) forbidden(args.request, permission);
  return user;
}

export async function requireSuperAdmin(args: Args): Promise<SessionUser> {
  const user = await requireUser(args);
  if (!user.isSuperAdmin) forbidden(args.request, null);
  return user;
}
