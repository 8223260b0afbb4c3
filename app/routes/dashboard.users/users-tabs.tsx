import { Link, useSearchParams } from "react-router";
import { cn } from "../../components/ui/cn";
import { useTranslation } from "../../i18n/use-translation";

const tab =
  "-mb-px border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring";

/** People and pending invitations, as two addresses: the invitations are one Tab away, not under the table. */
export function UsersTabs({ invitations }: { invitations: number }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const onInvitations = params.get("tab") === "invitations";
  // The people tab keeps the list's filters; the invitations tab has none.
  const people = new URLSearchParams(params);
  people.delete("tab");
  const peopleSearch = people.toString();
  const link = (current: boolean) =>
    cn(
      tab,
      current
        ? "border-primary text-foreground"
        : "border-transparent text-muted-foreground hover:text-foreground",
    );
  return (
    <nav aria-label={t("users:tabs.label")} className="flex gap-2 border-b">
      <Link
        to={peopleSearch ? `?${peopleSearch}` : "."}
        aria-current={onInvitations ? undefined : "page"}
        className={link(!onInvitations)}
      >
        {t("users:tabs.people")}
      </Link>
      <Link
        to="?tab=invitations"
        aria-current={onInvitations ? "page" : undefined}
        className={link(onInvitations)}
      >
        {t("users:tabs.invitations", { count: invitations })}
      </Link>
    </nav>
  );
}
