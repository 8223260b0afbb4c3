import { ChevronDown } from "lucide-react";
import { useNavigate, useSubmit } from "react-router";
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
  const post = (intent: string) => () => {
    onAct();
    submit({ intent }, { method: "post" });
  };
  const everyday = offered.enable || offered.sendReset || offered.resendVerification || offered.viewAs;
  const dangerous = offered.disable || offered.resetTwoFactor || offered.delete;
  if (!everyday && !dangerous && !offered.activity) return null;
  return (
    <DropdownMenu>
      <DropdownMenuTrigger ref={triggerRef}>
        <Button type="button" variant="secondary" aria-label={t("users:actions.label", { name: user.name })}>
          {t("users:actions.button")}
          <ChevronDown aria-hidden className="size-4" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent label={t("users:actions.label", { name: user.name })}>
        {offered.enable ? (
          <DropdownMenuItem onSelect={post("enable")}>{t("users:page.enable")}</DropdownMenuItem>
        ) : null}
        {offered.sendReset ? (
          <DropdownMenuItem onSelect={post("send-reset")}>{t("users:page.sendReset")}</DropdownMenuItem>
        ) : null}
        {offered.resendVerification ? (
          <DropdownMenuItem onSelect={post("resend-verification")}>
            {t("users:page.resendVerification")}
          </DropdownMenuItem>
        ) : null}
        {offered.viewAs ? (
          <DropdownMenuItem onSelect={post("view-as")}>
            {t("users:viewAs.button", { name: user.name })}
          </DropdownMenuItem>
        ) : null}
        {offered.activity ? (
          <DropdownMenuItem onSelect={() => navigate(`/dashboard/logs?person=${user.id}`)}>
            {t("users:page.allActivity")}
          </DropdownMenuItem>
        ) : null}
        {dangerous && (everyday || offered.activity) ? <DropdownMenuSeparator /> : null}
        {offered.disable ? (
          <DropdownMenuItem onSelect={() => onDanger("disable")}>{t("users:page.disable")}</DropdownMenuItem>
        ) : null}
        {offered.resetTwoFactor ? (
          <DropdownMenuItem onSelect={() => onDanger("reset-two-factor")}>
            {t("users:page.resetTwoFactor")}
          </DropdownMenuItem>
        ) : null}
        {offered.delete ? (
          <DropdownMenuItem onSelect={() => onDanger("delete")} className="text-destructive">
            {t("users:page.deleteAction")}
          </DropdownMenuItem>
        ) : null}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
