import type { ColumnType, Generated, Selectable } from "kysely";

// Timestamps are ISO-8601 strings and booleans 0/1, which read the same on SQLite and PostgreSQL.

interface PermissionTable {
  id: string;
  key: string;
  label: string;
  created_at: string;
}

interface RoleTable {
  id: string;
  name: string;
  label: string;
  /** 1 grants every permission, present and future (super_admin's '*'). */
  all_permissions: Generated<number>;
  is_system: Generated<number>;
  /** JSON `{"de": "…"}` (app/access/label-translations.ts). */
  label_translations: Generated<string>;
  /** Free text: what the role is for (migration 037). */
  description: Generated<string>;
  /** 1: people may ask for it, for at most max_request_hours (app/access/access-requests.server.ts). */
  requestable: Generated<number>;
  max_request_hours: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON array of CIDRs the role may be used from; "[]": anywhere (migration 042). */
  allowed_networks: Generated<string>;
  /** Stricter than the global limits; null: the global ones (migration 043). */
  session_idle_minutes: ColumnType<number | null, number | null | undefined, number | null>;
  session_max_hours: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: string;
  updated_at: string;
}

interface RolePermissionTable {
  role_id: string;
  permission_id: string;
}

interface MenuItemTable {
  id: string;
  title: string;
  url: string;
  icon: string;
  required_permission: string;
  position: number;
  /** JSON `{"de": "…"}` (app/access/label-translations.ts). */
  label_translations: Generated<string>;
  hidden: Generated<number>;
  created_at: string;
  updated_at: string;
}

interface UserTable {
  id: string;
  name: string;
  email: string;
  email_verified: Generated<number>;
  password_hash: string | null;
  status: Generated<"active" | "disabled">;
  must_change_password: Generated<number>;
  pending_registration: Generated<number>;
  /** SHA-256 of the newest pending registrant's browser cookie (registration-binding.server). */
  registration_binding: string | null;
  registration_contested: Generated<number>;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
  /** Null follows the browser. */
  locale: string | null;
  /** The SCIM directory that manages this account, if any. */
  directory_id: string | null;
  external_id: string | null;
  department: string | null;
  directory_deleted_at: string | null;
  sign_in_alerts: Generated<number>;
}

interface KnownDeviceTable {
  id: string;
  user_id: string;
  device_hash: string;
  ua_family: string;
  user_agent: string | null;
  network: string;
  first_seen_at: string;
  last_seen_at: string;
  alerted_at: string | null;
}

interface SavedViewTable {
  id: string;
  owner_id: string;
  list: "users" | "audit";
  name: string;
  query: string;
  shared_role_id: string | null;
  created_at: string;
  updated_at: string;
}

interface DirectoryTable {
  id: string;
  name: string;
  token_hash: string | null;
  token_hint: string | null;
  /** JSON array of lower-case domains. */
  domains: string;
  default_role_id: string | null;
  /** JSON array of { group, roleId, team }. */
  group_roles: Generated<string>;
  send_password_link: Generated<number>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

interface DirectoryGroupTable {
  id: string;
  directory_id: string;
  display_name: string;
  external_id: string | null;
  team_id: string | null;
  created_at: string;
  updated_at: string;
}

interface DirectoryGroupMemberTable {
  group_id: string;
  user_id: string;
}

export type AccessRequestStatus = "pending" | "approved" | "denied" | "expired";

interface AccessRequestTable {
  id: string;
  user_id: string;
  role_id: string;
  /** Null: the role over everyone; else within this team. */
  team_id: string | null;
  hours: number;
  reason: string;
  status: AccessRequestStatus;
  created_at: string;
  decided_by: string | null;
  decided_at: string | null;
  comment: string | null;
  /** The grant an approval created. */
  grant_id: string | null;
}

interface PermissionUseTable {
  user_id: string;
  permission: string;
  last_used_at: string;
}

export type AccessReviewStatus = "open" | "closing" | "closed";
export type ReviewDecision = "keep" | "revoke";

interface AccessReviewTable {
  id: string;
  name: string;
  role_id: string | null;
  team_id: string | null;
  due_at: string;
  on_overdue: ReviewDecision;
  status: AccessReviewStatus;
  created_by: string | null;
  created_at: string;
  closed_by: ColumnType<string | null, string | null | undefined, string | null>;
  closed_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The close's background task, for its progress. */
  task_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Every item, decision, decider and time, as handed to an auditor; its SHA-256 is in the audit chain. */
  evidence_csv: ColumnType<string | null, string | null | undefined, string | null>;
  evidence_sha256: ColumnType<string | null, string | null | undefined, string | null>;
}

interface AccessReviewItemTable {
  id: string;
  review_id: string;
  /** The user_role row it reviews, as it was when the review opened. */
  grant_id: string;
  user_id: string;
  user_email: string;
  user_name: string;
  role_id: string;
  role_name: string;
  team_id: string | null;
  team_name: string | null;
  granted_by: string | null;
  granted_at: string | null;
  expires_at: string | null;
  decision: ColumnType<ReviewDecision | null, ReviewDecision | null | undefined, ReviewDecision | null>;
  decided_by: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** What closing did: the grant revoked, kept, already gone, or the revocation refused. */
  outcome: ColumnType<string | null, string | null | undefined, string | null>;
}

interface UserRoleTable {
  /** Defaults in the database, so the many writers of a global grant need not name one. */
  id: Generated<string>;
  user_id: string;
  role_id: string;
  /** Null: over everyone; else only over this team and its members (app/access/decide.ts). */
  team_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** From this instant the grant gives nothing, whether or not a cleanup has removed it. */
  expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  granted_by: ColumnType<string | null, string | null | undefined, string | null>;
  granted_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its holder was told it ends within a day; null: not yet. */
  expiry_noticed_at: ColumnType<string | null, string | null | undefined, string | null>;
}

interface SessionTable {
  id: string;
  user_id: string;
  data: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  impersonated_user_id: string | null;
  impersonation_expires_at: string | null;
  /** sessionHandle(id): the public name of the session (migration 043). */
  handle: string | null;
}

export interface AuditLogTable {
  id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  impersonator_id: string | null;
  impersonator_email: string | null;
  request_id: string | null;
  /** Null only while a writer's insert is unfinished (app/audit/chain.ts). */
  seq: number | null;
  prev_hash: string | null;
  hash: string | null;
  /** Null for version 1 (plain SHA-256), 2 keyed. */
  hash_version: number | null;
}

interface WebhookEndpointTable {
  id: string;
  url: string;
  description: Generated<string>;
  /** JSON array of event types, or ["*"]. */
  events: string;
  enabled: Generated<number>;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

interface WebhookMessageTable {
  id: string;
  endpoint_id: string;
  type: string;
  body: string;
  resource: string;
  status: "pending" | "delivered" | "failed";
  attempts: Generated<number>;
  next_attempt_at: string;
  locked_until: string | null;
  created_at: string;
  delivered_at: string | null;
}

interface WebhookAttemptTable {
  id: string;
  message_id: string;
  created_at: string;
  status_code: number | null;
  latency_ms: number;
  response: Generated<string>;
  ok: number;
}

interface AuditChainTable {
  id: number;
  seq: number;
  hash: string;
  last_verification: string | null;
}

export interface AuditCheckpointTable {
  id: string;
  kind: "head" | "start";
  seq: number;
  hash: string;
  created_at: string;
  signature: string;
}

interface TeamTable {
  id: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

interface TeamMemberTable {
  team_id: string;
  user_id: string;
  team_role: "lead" | "member";
  created_at: string;
  /** Kept by triggers for the team's members-by-name index. */
  member_name: Generated<string>;
}

/** One row per in-process cache that instances clear together (app/events/cache-generations.server.ts). */
interface CacheGenerationTable {
  name: string;
  generation: string;
}

interface SystemSettingTable {
  key: string;
  /** Secrets hold AES-256-GCM ciphertext (app/security/secret-box.server.ts), never plaintext. */
  value: string;
  is_secret: number;
  updated_at: string;
  updated_by: string | null;
}

export interface MailLogTable {
  id: string;
  to_address: string;
  type: string;
  subject: string;
  status: "sent" | "failed" | "outbox";
  provider_message_id: string | null;
  error: string | null;
  /** Only for development-outbox mail, which nobody receives. */
  outbox_link: string | null;
  created_at: string;
  /** The email_template version whose words the mail used; null: the defaults. */
  template_version: number | null;
}

export interface EmailTemplateTable {
  type: string;
  language: string;
  subject: string | null;
  heading: string | null;
  message: string | null;
  button: string | null;
  footer: string | null;
  version: number;
  updated_at: string;
  updated_by: string | null;
}

export interface EmailTemplateVersionTable {
  id: string;
  type: string;
  language: string;
  version: number;
  change: "update" | "restore" | "reset";
  subject: string | null;
  heading: string | null;
  message: string | null;
  button: string | null;
  footer: string | null;
  created_at: string;
  created_by_email: string | null;
}

/** Its id is the unguessable `d` of /check-inbox. */
export interface MailDeliveryTable {
  id: string;
  purpose: "register" | "reset" | "resend";
  email: string;
  status: "sending" | "sent" | "failed";
  created_at: string;
  updated_at: string;
}

export interface UserTokenTable {
  id: string;
  user_id: string | null;
  /** "two-factor-enrol": `token_hash` is a hash of the id of the session that started it. */
  kind:
    | "verify-email"
    | "email-change"
    | "reset-password"
    | "set-password"
    | "not-me"
    | "invite"
    | "two-factor-pending"
    | "two-factor-enrol"
    /** `user_id` is the actor, `data` the act. */
    | "undo";
  token_hash: string;
  data: string | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface TaskTable {
  id: string;
  type: string;
  status: "pending" | "processing" | "completed" | "failed";
  user_id: string;
  payload: string | null;
  result: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  request_id: string | null;
  /** The starting request's W3C traceparent, when tracing is on (migration 038). */
  trace_parent: Generated<string | null>;
  /** A completion applies only to the run that holds it. */
  attempt: Generated<number>;
}

interface WebhookDeliveryTable {
  id: string;
  received_at: string;
}

interface TaskArtifactTable {
  task_id: string;
  filename: string;
  content_type: string;
  content: string;
  created_at: string;
}

export type NoticeLevel = "info" | "success" | "warning" | "critical";

interface BroadcastTable {
  id: string;
  title: string;
  message: string;
  level: NoticeLevel;
  link: string | null;
  /** JSON: {"kind":"all"} | {"kind":"roles","ids":[…]} | {"kind":"teams","ids":[…]} */
  audience: string;
  recipient_count: Generated<number>;
  email_status: Generated<"none" | "pending" | "sending" | "done" | "failed">;
  emails_sent: Generated<number>;
  emails_failed: Generated<number>;
  created_by: string | null;
  created_at: string;
}

export type NotificationKind = "broadcast" | "security";

interface NotificationTable {
  id: string;
  user_id: string;
  broadcast_id: string | null;
  kind: Generated<NotificationKind>;
  title: string;
  message: string;
  level: NoticeLevel;
  link: string | null;
  read_at: string | null;
  created_at: string;
}

/** Kept by triggers (db/counted.ts): `scope` '' for the system or a user id, `day` a UTC date or '' for a total. */
interface StatCountTable {
  scope: string;
  day: string;
  name: string;
  n: number;
}

/** `confirmed_at` null while enrolment waits for a code. */
interface UserTwoFactorTable {
  user_id: string;
  secret: string;
  confirmed_at: string | null;
  /** bigint: a string on PostgreSQL. */
  last_step: number | string | null;
  created_at: string;
}

interface TwoFactorRecoveryCodeTable {
  id: string;
  user_id: string;
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

interface TwoFactorRequiredRoleTable {
  role_id: string;
  created_at: string;
}

interface OidcProviderTable {
  id: string;
  slug: string;
  name: string;
  issuer: string;
  client_id: string;
  /** Encrypted (app/security/secret-box.server.ts). */
  client_secret: string;
  /** JSON array of lower-case domains. */
  allowed_domains: string;
  role_id: string | null;
  password_allowed: number;
  created_at: string;
  updated_at: string;
}

interface OidcIdentityTable {
  provider_id: string;
  subject: string;
  user_id: string;
  created_at: string;
}

interface OidcFlowTable {
  id: string;
  provider_id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_to: string;
  expires_at: string;
}

interface OidcPendingLinkTable {
  /** SHA-256 of the token in the browser's signed cookie. */
  id: string;
  user_id: string;
  provider_id: string;
  subject: string;
  reason: string;
  redirect_to: string;
  created_at: string;
  expires_at: string;
}

interface PasskeyTable {
  id: string;
  user_id: string;
  /** base64url */
  credential_id: string;
  /** base64url of the COSE public key */
  public_key: string;
  /** bigint on PostgreSQL (read back as a string there): use Number(). */
  counter: number | string;
  transports: string;
  name: string;
  backed_up: number;
  created_at: string;
  last_used_at: string | null;
}

export interface PasskeyChallengeTable {
  challenge: string;
  purpose: "registration" | "authentication";
  user_id: string | null;
  expires_at: string;
}

/** The secret's SHA-256 only; `permissions` a JSON list of keys. */
interface ApiTokenTable {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  permissions: string;
  expires_at: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** `id` is the global, ordered id a client resumes from with Last-Event-ID; kept for a bounded window. */
interface EventLogTable {
  id: Generated<number>;
  user_id: string;
  type: string;
  data: string;
  created_at: string;
}

export interface Database {
  permission: PermissionTable;
  role: RoleTable;
  role_permission: RolePermissionTable;
  menu_item: MenuItemTable;
  user: UserTable;
  user_role: UserRoleTable;
  access_request: AccessRequestTable;
  access_review: AccessReviewTable;
  access_review_item: AccessReviewItemTable;
  permission_use: PermissionUseTable;
  directory: DirectoryTable;
  known_device: KnownDeviceTable;
  saved_view: SavedViewTable;
  directory_group: DirectoryGroupTable;
  directory_group_member: DirectoryGroupMemberTable;
  session: SessionTable;
  audit_log: AuditLogTable;
  audit_chain: AuditChainTable;
  audit_checkpoint: AuditCheckpointTable;
  webhook_endpoint: WebhookEndpointTable;
  webhook_message: WebhookMessageTable;
  webhook_attempt: WebhookAttemptTable;
  task: TaskTable;
  webhook_delivery: WebhookDeliveryTable;
  task_artifact: TaskArtifactTable;
  system_setting: SystemSettingTable;
  cache_generation: CacheGenerationTable;
  mail_log: MailLogTable;
  email_template: EmailTemplateTable;
  email_template_version: EmailTemplateVersionTable;
  mail_delivery: MailDeliveryTable;
  user_token: UserTokenTable;
  team: TeamTable;
  team_member: TeamMemberTable;
  broadcast: BroadcastTable;
  notification: NotificationTable;
  stat_count: StatCountTable;
  user_two_factor: UserTwoFactorTable;
  two_factor_recovery_code: TwoFactorRecoveryCodeTable;
  two_factor_required_role: TwoFactorRequiredRoleTable;
  oidc_provider: OidcProviderTable;
  oidc_identity: OidcIdentityTable;
  oidc_flow: OidcFlowTable;
  oidc_pending_link: OidcPendingLinkTable;
  passkey: PasskeyTable;
  passkey_challenge: PasskeyChallengeTable;
  api_token: ApiTokenTable;
  event_log: EventLogTable;
}

export type MenuItem = Selectable<MenuItemTable>;
