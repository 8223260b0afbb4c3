import { useTranslation } from "../../i18n/use-translation";
import { Dialog, DialogContent } from "../ui/dialog";

const kbd = "rounded border bg-muted px-1.5 py-0.5 font-mono text-xs";

/** "?": the keys the dashboard answers to, in a plain list. */
export function ShortcutsDialog({
  open,
  onOpenChange,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { t } = useTranslation();
  const rows: [string[], string][] = [
    [["Ctrl", "K"], t("shell:palette.keys.open")],
    [["⌘", "K"], t("shell:palette.keys.openMac")],
    [["/"], t("shell:palette.keys.search")],
    [["?"], t("shell:palette.keys.help")],
    [["Ctrl", "Z"], t("shell:palette.keys.undo")],
    [["↑", "↓"], t("shell:palette.keys.move")],
    [["Enter"], t("shell:palette.keys.choose")],
    [["Esc"], t("shell:palette.keys.close")],
  ];
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={t("shell:palette.keys.title")}>
        <dl className="grid grid-cols-[auto_1fr] items-center gap-x-4 gap-y-2 text-sm">
          {rows.map(([keys, what]) => (
            <div key={what} className="contents">
              <dt className="flex gap-1">
                {keys.map((k) => (
                  <kbd key={k} className={kbd}>
                    {k}
                  </kbd>
                ))}
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
      </DialogContent>
    </Dialog>
  );
}
