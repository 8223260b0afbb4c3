import { ChevronDown } from "lucide-react";
import { Fragment, useMemo } from "react";
import { useNavigate, useSubmit } from "react-router";
import { type PageAction, usePageActions } from "../../components/command-palette/page-actions";
import { Button } from "../../components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "../../components/ui/dropdown-menu";
import { useTranslation } from "../../i18n/use-translation";
import type { Danger } from "./danger-dialogs";

/** Every act on the account from the page's header, so none is 28 Tabs away (issue 36, 8). */
export type AccountActions = {
  enable: boolean;
  sendReset: boolean;
  resendVerification: boolean;
  viewAs: boolean;
  activity: boolean;
  disable: boolean;
  resetTwoFactor: boolean;
  delete: boolean;
};

type Act = PageAction & { danger: boolean };

/**
 * The header's menu of acts on the account; the command palette offers the same acts ("On this
 * page"), run by the same handlers: an everyday one is posted, one that hurts opens its confirmation.
 */
export function ActionsMenu({
  user,
  offered,
  triggerRef,
  onDanger,
  onAct,
}: {
  user: { id: string; name: string };
  offered: AccountActions;
  triggerRef: React.RefObject<HTMLButtonElement | null>;
  onDanger: (danger: Danger) => void;
  /** Before an act is posted, so its refusal shows by the menu. */
  onAct: () => void;
}) {
  const { t } = useTranslation();
  const submit = useSubmit();
  const navigate = useNavigate();
  const key = JSON.stringify(offered);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `offered`; the handlers only set state
  const acts = useMemo(() => {
    const post = (intent: string) => () => {
      onAct();
      submit({ intent }, { method: "post" });
    };
    const all: (Act | false)[] = [
      offered.enable && { id: "enable", label: t("users:page.enable"), run: post("enable"), danger: false },
      offered.sendReset && {
        id: "send-reset",
        label: t("users:page.sendReset"),
        run: post("send-reset"),
        danger: false,
      },
      offered.resendVerification && {
        id: "resend-verification",
        label: t("users:page.resendVerification"),
        run: post("resend-verification"),
        danger: false,
      },
      offered.viewAs && {
        id: "view-as",
        label: t("users:viewAs.button", { name: user.name }),
        run: post("view-as"),
        danger: false,
      },
      offered.activity && {
        id: "activity",
        label: t("users:page.allActivity"),
        run: () => navigate(`/dashboard/logs?person=${user.id}`),
        danger: false,
      },
      offered.disable && {
        id: "disable",
        label: t("users:page.disable"),
        run: () => onDanger("disable"),
        danger: true,
      },
      offered.resetTwoFactor && {
        id: "reset-two-factor",
        label: t("users:page.resetTwoFactor"),
        run: () => onDanger("reset-two-factor"),
        danger: true,
      },
      offered.delete && {
        id: "delete",
        label: t("users:page.deleteAction"),
        run: () => onDanger("delete"),
        danger: true,
      },
    ];
    return all.filter((a): a is Act => Boolean(a));
  }, [key, user.id, user.name, t]);
  const forPalette = useMemo(
    () => acts.map((a) => ({ ...a, label: `${a.label} · ${user.name}` })),
    [acts, user.name],
  );
  usePageActions(forPalette);
  if (!acts.length) return null;
  return (
    <DropdownMenu>
      <DropdownMenuTrigger ref={triggerRef}>
        <Button type="button" variant="secondary" aria-label={t("users:actions.label", { name: user.name })}>
          {t("users:actions.button")}
          <ChevronDown aria-hidden className="size-4" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent label={t("users:actions.label", { name: user.name })}>
        {acts.map((a, i) => (
          <Fragment key={a.id}>
            {a.danger && i > 0 && !acts[i - 1]!.danger ? <DropdownMenuSeparator /> : null}
            <DropdownMenuItem onSelect={a.run} className={a.id === "delete" ? "text-destructive" : undefined}>
              {a.label}
            </DropdownMenuItem>
          </Fragment>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
