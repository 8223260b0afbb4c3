import { Monitor, Moon, Sun } from "lucide-react";
import { useFetcher } from "react-router";

const NEXT = { light: "dark", dark: "system", system: "light" } as const;
const ICON = { light: Sun, dark: Moon, system: Monitor } as const;

export function ThemeSwitch({ theme }: { theme: keyof typeof NEXT }) {
  const fetcher = useFetcher();
  const current = (fetcher.formData?.get("theme") as keyof typeof NEXT | null) ?? theme;
  const Icon = ICON[current];
  if (typeof document !== "undefined") document.documentElement.dataset.theme = current;
  return (
    <fetcher.Form method="post" action="/theme">
      <input type="hidden" name="theme" value={NEXT[current]} />
      <button
        type="submit"
        className="rounded-md p-2 hover:bg-slate-200 dark:hover:bg-slate-800"
        aria-label={`Theme: ${current}. Switch to ${NEXT[current]}`}
        title={`Theme: ${current}`}
      >
        <Icon aria-hidden className="size-5" />
      </button>
    </fetcher.Form>
  );
}
