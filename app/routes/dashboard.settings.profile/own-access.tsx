import { Link } from "react-router";
import type { LabelTranslations } from "../../access/label-translations";
import { roleLabel } from "../../access/role-labels";
import { useFormat } from "../../components/format";
import { Card } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { useTranslation } from "../../i18n/use-translation";

export type OwnGrant = {
  role: { name: string; label: string; translations: LabelTranslations };
  team: string | null;
  expiresAt: string | null;
};

/** The holder's own roles with their end dates: where the "ends within a day" notice leads. */
export function OwnAccess({ grants }: { grants: OwnGrant[] }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  return (
    <div id="access" className="scroll-mt-20">
      <Card title={t("settings:access.title")}>
        <p className="text-sm text-muted-foreground">{t("settings:access.intro")}</p>
        <p className="mt-2 text-sm">
          <Link to="/dashboard/access/requests" className={linkVariants()}>
            {t("access:requests.askLink")}
          </Link>
        </p>
        {grants.length === 0 ? (
          <p className="mt-3 text-sm">{t("settings:access.none")}</p>
        ) : (
          <ul className="mt-3 divide-y divide-border text-sm">
            {grants.map((g) => (
              <li
                key={`${g.role}/${g.team ?? ""}`}
                className="flex flex-wrap justify-between gap-x-4 gap-y-1 py-2"
              >
                <span>
                  <span className="font-medium">{roleLabel(t, g.role)}</span>{" "}
                  <span className="text-muted-foreground">
                    {g.team ? t("settings:access.inTeam", { team: g.team }) : t("settings:access.everyone")}
                  </span>
                </span>
                {g.expiresAt ? (
                  <time dateTime={g.expiresAt}>
                    {t("settings:access.ends", { when: formatDateTime(g.expiresAt) })}
                  </time>
                ) : (
                  <span className="text-muted-foreground">{t("settings:access.noEnd")}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
