import { SlidersHorizontal } from "lucide-react";
import { useState } from "react";
import { useTranslation } from "../../i18n/use-translation";
import { useMedia } from "../use-media";
import { Button } from "./button";
import { Sheet, SheetContent, SheetTrigger } from "./sheet";

/**
 * A list's filters as they are from a tablet up; on a phone behind one "Filters (n)" button, in a
 * sheet, so the list starts on the first screen. The form applies as it is changed either way.
 */
export function PhoneFilters({ applied, children }: { applied: number; children: React.ReactNode }) {
  const { t } = useTranslation();
  const phone = useMedia("(max-width: 767.98px)");
  const [open, setOpen] = useState(false);
  if (!phone) return <>{children}</>;
  return (
    <Sheet open={open} onOpenChange={setOpen}>
      <SheetTrigger asChild>
        <Button type="button" variant="secondary" className="self-start">
          <SlidersHorizontal aria-hidden className="size-4" />
          {t("ui:filters.button", { count: applied })}
        </Button>
      </SheetTrigger>
      <SheetContent title={t("ui:filters.title")} side="right">
        <div className="p-4">{children}</div>
      </SheetContent>
    </Sheet>
  );
}
