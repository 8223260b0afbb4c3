// What the audit log page shows of a row, in words: shared by the loader and the page.

/** A target as the log shows it: its current name, a link when it still exists, else the stored id. */
export type AuditTarget = {
  type: string;
  /** The stored type ("user"): the page names it in the reader's language (audit:targetType). */
  typeKey: string;
  id: string | null;
  name: string | null;
  href: string | null;
};

/** One line of a change: before and after as words (role labels, people's names), not ids. */
type AuditChange = { key: string; field: string; before: string; after: string; changed: boolean };

export type AuditDetails =
  | { kind: "diff"; changes: AuditChange[]; facts: AuditFact[] }
  | { kind: "facts"; facts: AuditFact[] }
  | { kind: "text"; text: string }
  | null;
type AuditFact = { field: string; value: string };

export type AuditView = {
  id: string;
  createdAt: string;
  action: string;
  actionLabel: string;
  /** A user change that only moved roles: the page says "Changed roles". */
  rolesOnly: boolean;
  actor: { id: string | null; email: string | null; name: string | null };
  /** The super admin who really acted while viewing as `actor` ("View as"), else null. */
  impersonator: { id: string; email: string | null; name: string | null } | null;
  target: AuditTarget | null;
  details: AuditDetails;
  ip: string | null;
  userAgent: string | null;
  /** What the user agent names (parsed on the server), to say "Chrome on macOS". */
  device: { browser: string | null; os: string | null } | null;
  /** The request that wrote the row (its X-Request-Id), to find its log lines. */
  requestId: string | null;
};
