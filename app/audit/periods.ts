// The audit log's "last …" presets, shared by its filter form and its query. A saved view keeps the
// preset, not the dates, so "last 7 days" stays the last seven days.

export const AUDIT_PERIODS = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export type AuditPeriod = keyof typeof AUDIT_PERIODS;
export const PERIOD_NAMES = Object.keys(AUDIT_PERIODS) as [AuditPeriod, ...AuditPeriod[]];
