import type { NoticeLevel } from "../../notifications/levels";
import { Badge, type BadgeVariant } from "../ui/badge";

// A warning is amber, never the red of an error; only "critical" is.
export const LEVEL_VARIANT: Record<NoticeLevel, BadgeVariant> = {
  info: "info",
  success: "success",
  warning: "warning",
  critical: "danger",
};

export const LEVEL_LABEL: Record<NoticeLevel, string> = {
  info: "Info",
  success: "Success",
  warning: "Warning",
  critical: "Critical",
};

export function LevelBadge({ level }: { level: string }) {
  const known = level in LEVEL_VARIANT ? (level as NoticeLevel) : null;
  return (
    <Badge variant={known ? LEVEL_VARIANT[known] : "neutral"}>{known ? LEVEL_LABEL[known] : level}</Badge>
  );
}
