import { ListChecks, LogOut, Settings } from "lucide-react";
import { useNavigate, useSubmit } from "react-router";
import { useTranslation } from "../i18n/use-translation";
import { buttonVariants } from "./ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "./ui/dropdown-menu";
import { useHydrated } from "./use-hydrated";

export function UserMenu({ name, email }: { name: string; email: string }) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const navigate = useNavigate();
  // Named by its own text (the user's name) so the spoken name contains what is seen.
  const trigger = (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={false}
      className={buttonVariants({ variant: "ghost", size: "sm", className: "px-2 py-1 font-normal" })}
    >
      <span
        aria-hidden
        className="grid size-8 place-items-center rounded-full bg-primary text-sm font-semibold text-primary-foreground"
      >
        {name.slice(0, 1).toUpperCase()}
      </span>
      <span className="sr-only text-sm sm:not-sr-only">{name}</span>
      <span className="sr-only">{t("shell:userMenu.suffix")}</span>
    </button>
  );
  // The menu's machinery once scripts run (use-hydrated.ts); the same button before.
  const hydrated = useHydrated();
  if (!hydrated) return trigger;
  return (
    <DropdownMenu>
      <DropdownMenuTrigger>{trigger}</DropdownMenuTrigger>
      <DropdownMenuContent className="w-60" label={t("shell:userMenu.label")}>
        <DropdownMenuLabel>
          <span className="block font-medium">{name}</span>
          <span className="block truncate text-xs text-muted-foreground">{email}</span>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => navigate("/dashboard/settings")}>
          <Settings aria-hidden className="size-4" /> {t("shell:userMenu.settings")}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => navigate("/dashboard/tasks")}>
          <ListChecks aria-hidden className="size-4" /> {t("shell:userMenu.tasks")}
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => submit(null, { method: "post", action: "/logout" })}>
          <LogOut aria-hidden className="size-4" /> {t("shell:signOut")}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
