import { useId } from "react";
import { cardClass } from "./card";
import { cn } from "./cn";

/**
 * The acts that hurt (disable, delete, reset a safeguard), kept together at the end of a page and
 * apart from everyday buttons, so none sits between two harmless ones. A named region: a screen
 * reader's landmark list offers it, and each row says what its button does before the button.
 */
export function DangerZone({ title, children }: { title: string; children: React.ReactNode }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className={cn(cardClass, "border-destructive/60 p-4")}>
      <h2 id={headingId} className="mb-1 font-semibold text-destructive">
        {title}
      </h2>
      <div className="flex flex-col divide-y">{children}</div>
    </section>
  );
}

/** One act of a DangerZone: what it is and what follows, then its button (usually a ConfirmDialog). */
export function DangerRow({
  title,
  description,
  action,
}: {
  title: string;
  description: string;
  action: React.ReactNode;
}) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 py-3 last:pb-0">
      <div className="min-w-0 flex-1 basis-64">
        <h3 className="text-sm font-medium">{title}</h3>
        <p className="text-sm text-muted-foreground">{description}</p>
      </div>
      <div className="shrink-0">{action}</div>
    </div>
  );
}
