import type { TFunction } from "i18next";
import { Monitor, Moon, Sun } from "lucide-react";
import { useEffect } from "react";
import { useFetcher } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { buttonVariants } from "./ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuTrigger,
} from "./ui/dropdown-menu";
import { Tooltip } from "./ui/tooltip";
import { useHydrated } from "./use-hydrated";

type Theme = "light" | "dark" | "system";
const ICON = { light: Sun, dark: Moon, system: Monitor } as const;
const label = (t: TFunction, theme: Theme) =>
  theme === "light"
    ? t("shell:theme.light")
    : theme === "dark"
      ? t("shell:theme.dark")
      : t("shell:theme.system");

/**
 * Light / Dark / System, posted to /theme (which sets the cookie the server renders
 * `<html data-theme>` from, so a reload never flashes). The choice shows at once, before the post
 * returns.
 */
export function ThemeMenu({ theme }: { theme: Theme }) {
  const { t } = useTranslation();
  // Shared with the palette's theme commands, so a choice made there shows here as it is saved.
  const fetcher = useFetcher({ key: "theme" });
  const pending = fetcher.formData?.get("theme");
  const current: Theme = pending === "light" || pending === "dark" || pending === "system" ? pending : theme;
  useEffect(() => {
    document.documentElement.dataset.theme = current;
  }, [current]);
  const Icon = ICON[current];
  const trigger = (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={false}
      aria-label={t("shell:theme.current", { theme: label(t, current) })}
      className={buttonVariants({ variant: "ghost", size: "icon" })}
    >
      <Icon aria-hidden className="size-5" />
    </button>
  );
  // The menu's machinery once scripts run (use-hydrated.ts); the same button before.
  const hydrated = useHydrated();
  if (!hydrated) return trigger;
  return (
    <DropdownMenu>
      <Tooltip content={t("shell:theme.title")}>
        <DropdownMenuTrigger>{trigger}</DropdownMenuTrigger>
      </Tooltip>
      <DropdownMenuContent label={t("shell:theme.title")} className="w-40">
        <DropdownMenuRadioGroup
          value={current}
          onValueChange={(value: Theme) =>
            fetcher.submit({ theme: value }, { method: "post", action: "/theme" })
          }
        >
          {(["light", "dark", "system"] as const).map((value) => {
            const ItemIcon = ICON[value];
            return (
              <DropdownMenuRadioItem key={value} value={value}>
                <ItemIcon aria-hidden className="size-4" /> {label(t, value)}
              </DropdownMenuRadioItem>
            );
          })}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
