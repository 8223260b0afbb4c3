import { Badge } from "../ui/badge";

export function StatusBadge({ status }: { status: "active" | "disabled" }) {
  return status === "active" ? (
    <Badge variant="success">Active</Badge>
  ) : (
    <Badge variant="danger">Disabled</Badge>
  );
}

export function VerifiedBadge({ verified }: { verified: boolean | number }) {
  return verified ? <Badge variant="info">Verified</Badge> : <Badge variant="warning">Not verified</Badge>;
}

const TASK_STATUS: Record<string, { label: string; variant: "neutral" | "info" | "success" | "danger" }> = {
  pending: { label: "Waiting", variant: "neutral" },
  processing: { label: "Running", variant: "info" },
  completed: { label: "Done", variant: "success" },
  failed: { label: "Failed", variant: "danger" },
};

export function TaskStatusBadge({ status }: { status: string }) {
  const shown = TASK_STATUS[status] ?? { label: status, variant: "neutral" as const };
  return <Badge variant={shown.variant}>{shown.label}</Badge>;
}
