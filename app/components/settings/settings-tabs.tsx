import { createContext, useCallback, useContext, useEffect, useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../ui/tabs";

export type SettingsTab = { value: string; label: string; content: React.ReactNode };

const RevealContext = createContext<(tab: string) => void>(() => {});
const TabContext = createContext<string>("");

/** Shows the tab a section sits in: a refusal must never stay hidden behind another tab. */
export function useRevealOwnTab() {
  const reveal = useContext(RevealContext);
  const own = useContext(TabContext);
  return useCallback(() => reveal(own), [reveal, own]);
}

/**
 * Settings' sections as tabs (Radix: arrow keys, roles). Each tab is a link to its section's
 * hash, so a section has an address and, without JavaScript, the links jump down a page that shows
 * every section (the inactive ones are hidden only by script).
 */
export function SettingsTabs({ tabs, initial }: { tabs: SettingsTab[]; initial?: string }) {
  const { t } = useTranslation();
  const [active, setActive] = useState(tabs.some((tab) => tab.value === initial) ? initial! : tabs[0]!.value);
  const [scripted, setScripted] = useState(false);

  const select = useCallback((value: string) => {
    setActive(value);
    if (window.location.hash !== `#${value}`)
      window.history.replaceState(window.history.state, "", `#${value}`);
  }, []);

  const values = tabs.map((t) => t.value).join(" ");
  useEffect(() => {
    setScripted(true);
    const known = values.split(" ");
    const follow = () => {
      const hash = window.location.hash.slice(1);
      if (known.includes(hash)) setActive(hash);
    };
    follow();
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, [values]);

  return (
    <RevealContext.Provider value={select}>
      <Tabs value={active} onValueChange={select}>
        <TabsList aria-label={t("settings:tabs.label")}>
          {tabs.map((t) => (
            <TabsTrigger key={t.value} value={t.value} asChild>
              <a
                href={`#${t.value}`}
                onClick={(event) => {
                  // The tab is chosen by Radix; the page does not jump to the anchor.
                  event.preventDefault();
                }}
              >
                {t.label}
              </a>
            </TabsTrigger>
          ))}
        </TabsList>
        {tabs.map((t) => (
          <TabsContent
            key={t.value}
            value={t.value}
            forceMount
            hidden={scripted && t.value !== active}
            className="flex flex-col gap-6"
          >
            <TabContext.Provider value={t.value}>
              <div id={t.value} className="flex scroll-mt-20 flex-col gap-6">
                {t.content}
              </div>
            </TabContext.Provider>
          </TabsContent>
        ))}
      </Tabs>
    </RevealContext.Provider>
  );
}
