/**
 * Whoever acts: the one type every domain module takes its caller as; a function that reads less
 * takes a Pick of it. It sits with the audit log, which names the actor of every change, so the
 * infrastructure (webhooks) may use it as well as the domains; auth's SessionUser is one, an API
 * token's caller another.
 */
export type Actor = {
  id: string;
  /** What an audit row names (audit.server.ts). */
  email: string;
  isSuperAdmin: boolean;
  permissions: ReadonlySet<string>;
  /** The role names held (a saved view shared with a role). */
  roles: readonly string[];
  /** "token" when an API token signed the request in; absent or "session" otherwise. */
  via?: "session" | "token";
};

/** Whoever acts, as a change that is audited reads them. */
export type AuditedActor = Pick<Actor, "id" | "email" | "isSuperAdmin" | "permissions">;
