import type { TFunction } from "i18next";
import { useTranslation } from "../../i18n/use-translation";
import type { NoticeLevel } from "../../notifications/levels";
import { Badge, type BadgeVariant } from "../ui/badge";

// A warning is amber, never the red of an error; only "critical" is.
const LEVEL_VARIANT: Record<NoticeLevel, BadgeVariant> = {
  info: "info",
  success: "success",
  warning: "warning",
  critical: "destructive",
};

/** A level's name in the page's language. */
function levelLabel(t: TFunction, level: NoticeLevel): string {
  switch (level) {
    case "info":
      return t("shell:level.info");
    case "success":
      return t("shell:level.success");
    case "warning":
      return t("shell:level.warning");
    case "critical":
      return t("shell:level.critical");
  }
}

export function LevelBadge({ level }: { level: string }) {
  const { t } = useTranslation();
  const known = level in LEVEL_VARIANT ? (level as NoticeLevel) : null;
  return (
    <Badge variant={known ? LEVEL_VARIANT[known] : "neutral"}>{known ? levelLabel(t, known) : level}</Badge>
  );
}
