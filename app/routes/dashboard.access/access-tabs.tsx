import { useEffect, useState } from "react";
import { useLocation, useNavigate, useNavigation, useSearchParams } from "react-router";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../../components/ui/tabs";
import { useTranslation } from "../../i18n/use-translation";

const ACCESS_TABS = ["permissions", "roles", "menu", "who"] as const;
export type AccessTab = (typeof ACCESS_TABS)[number];

export function accessTabOf(value: unknown): AccessTab | undefined {
  return ACCESS_TABS.find((tab) => tab === value);
}

/** Every panel stays mounted, so unsaved changes survive a switch. */
export function AccessTabs({
  panels,
  unsaved,
}: {
  panels: Record<AccessTab, React.ReactNode>;
  unsaved: Partial<Record<AccessTab, boolean>>;
}) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const addressed = accessTabOf(params.get("tab")) ?? "permissions";
  // The tab follows the keys at once, so fast arrow keys do not bounce focus back.
  const [active, setActive] = useState(addressed);
  // Synced from the address only when idle: an earlier navigation must not win over a later key.
  const idle = useNavigation().state === "idle";
  useEffect(() => {
    if (idle) setActive(addressed);
  }, [addressed, idle]);
  const href = (tab: AccessTab) => (tab === "permissions" ? pathname : `${pathname}?tab=${tab}`);

  return (
    <Tabs
      value={active}
      onValueChange={(value) => {
        const tab = value as AccessTab;
        setActive(tab);
        navigate(href(tab), { preventScrollReset: true });
      }}
    >
      <TabsList aria-label={t("access:tabs.label")}>
        {ACCESS_TABS.map((tab) => (
          <TabsTrigger key={tab} value={tab} asChild>
            {/* A link without script; with it, Radix chooses the tab and the address follows. */}
            <a href={href(tab)} onClick={(event) => event.preventDefault()}>
              {t(`access:tabs.${tab}`)}
              {unsaved[tab] ? (
                <>
                  <span aria-hidden className="ml-1.5 inline-block size-2 rounded-full bg-warning" />
                  <span className="sr-only"> ({t("access:tabs.unsaved")})</span>
                </>
              ) : null}
            </a>
          </TabsTrigger>
        ))}
      </TabsList>
      {ACCESS_TABS.map((tab) => (
        <TabsContent key={tab} value={tab} forceMount hidden={tab !== active} className="flex flex-col gap-6">
          {panels[tab]}
        </TabsContent>
      ))}
    </Tabs>
  );
}
