// Shared by the server and the browser (no server imports here).

/** What Settings → System says of the audit chain: the last verification and the last checkpoint. */
export type AuditIntegrity = {
  lastVerification: {
    at: string;
    ok: boolean;
    rows: number;
    upTo: string | null;
    message: string | null;
  } | null;
  lastCheckpointAt: string | null;
};
