import { Copy, Download, Printer } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFormat } from "../../components/format";
import { alertVariants } from "../../components/ui/alert";
import { Button } from "../../components/ui/button";
import { cn } from "../../components/ui/cn";
import { useTranslation } from "../../i18n/use-translation";
import { recoveryCodesFileName, recoveryCodesText } from "./recovery-codes-file";

type Saved = "copied" | "copyFailed" | "downloaded" | null;

/** Shown once; what each button did is said in a status line, so it is seen and read out. */
export function RecoveryCodes({
  codes,
  appName,
  email,
}: {
  codes: string[];
  appName: string;
  email: string;
}) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const [saved, setSaved] = useState<Saved>(null);
  const [made] = useState(() => new Date().toISOString());
  const text = () => recoveryCodesText({ appName, email, codes, made: formatDateTime(made) }, t);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text());
      setSaved("copied");
    } catch {
      setSaved("copyFailed");
    }
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([text()], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = recoveryCodesFileName(appName, t);
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
    setSaved("downloaded");
  };
  const print = usePrintOnly();

  return (
    <section
      aria-labelledby="recovery-codes-heading"
      data-print-target=""
      className={cn(alertVariants({ variant: "warning", framed: true }), "text-foreground")}
    >
      <h3 id="recovery-codes-heading" className="text-sm font-semibold">
        {t("settings:twoFactor.codesTitle")}
      </h3>
      {/* On paper the box stands alone: say whose codes they are and for what. */}
      <p className="hidden text-sm print:block">
        {t("settings:twoFactor.codesFile.heading", { appName })} · {email}
      </p>
      <p className="mt-1 text-sm">{t("settings:twoFactor.codesIntro")}</p>
      <ul className="mt-2 grid grid-cols-2 gap-1 font-mono text-sm" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap items-center gap-2 print:hidden">
        <Button type="button" variant="secondary" size="sm" onClick={copy}>
          <Copy aria-hidden className="size-4" />
          {t("settings:twoFactor.copyCodes")}
        </Button>
        <Button type="button" variant="secondary" size="sm" onClick={download}>
          <Download aria-hidden className="size-4" />
          {t("settings:twoFactor.downloadCodes")}
        </Button>
        <Button type="button" variant="secondary" size="sm" onClick={print}>
          <Printer aria-hidden className="size-4" />
          {t("settings:twoFactor.printCodes")}
        </Button>
      </div>
      <p
        role="status"
        className={cn("mt-2 text-sm print:hidden", saved === "copyFailed" && "text-destructive")}
      >
        {saved ? t(`settings:twoFactor.saved.${saved}`) : ""}
      </p>
    </section>
  );
}

/** The mark on <html> switches the print rules on (app.css) until the print dialog is done. */
function usePrintOnly() {
  const cleanup = useRef<(() => void) | null>(null);
  useEffect(() => () => cleanup.current?.(), []);
  return () => {
    const root = document.documentElement;
    const done = () => {
      delete root.dataset.printing;
      window.removeEventListener("afterprint", done);
      cleanup.current = null;
    };
    cleanup.current = done;
    root.dataset.printing = "";
    window.addEventListener("afterprint", done);
    window.print();
  };
}
