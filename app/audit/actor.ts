/** The one type every domain module takes its caller as; here, with the audit log, so infrastructure may use it too. */
export type Actor = {
  id: string;
  email: string;
  isSuperAdmin: boolean;
  permissions: ReadonlySet<string>;
  roles: readonly string[];
  via?: "session" | "token";
};

/** Whoever acts, as a change that is audited reads them. */
export type AuditedActor = Pick<Actor, "id" | "email" | "isSuperAdmin" | "permissions">;
