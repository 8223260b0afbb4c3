import { useEffect, useRef } from "react";
import { useBlocker } from "react-router";
import { Button } from "../../components/ui/button";
import { Dialog, DialogContent, DialogFooter } from "../../components/ui/dialog";
import { useTranslation } from "../../i18n/use-translation";

/**
 * Warns before unsaved changes are dropped: a dialog for a link inside the app (Escape or "Stay"
 * keeps the page, "Leave without saving" goes on), the browser's own prompt for closing the tab or
 * reloading. Submitting to the page itself is never blocked.
 */
export function LeaveGuard({ when, what }: { when: boolean; what: string }) {
  const { t } = useTranslation();
  const previous = useRef<HTMLElement | null>(null);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => {
    const block = when && currentLocation.pathname !== nextLocation.pathname;
    // The dialog has no trigger: focus goes back to whatever started the navigation.
    if (block) previous.current = document.activeElement as HTMLElement | null;
    return block;
  });

  useEffect(() => {
    if (!when) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [when]);

  const blocked = blocker.state === "blocked";
  return (
    <Dialog
      open={blocked}
      onOpenChange={(open) => {
        if (!open && blocker.state === "blocked") blocker.reset();
      }}
    >
      <DialogContent
        title={t("access:leave.title")}
        description={t("access:leave.description", { what })}
        onCloseAutoFocus={(event) => {
          event.preventDefault();
          if (previous.current?.isConnected) previous.current.focus();
        }}
      >
        <DialogFooter>
          <Button type="button" variant="secondary" onClick={() => blocker.reset?.()}>
            {t("access:leave.stay")}
          </Button>
          <Button type="button" variant="destructive" onClick={() => blocker.proceed?.()}>
            {t("access:leave.leave")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
