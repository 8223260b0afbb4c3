import { alertVariants } from "./alert";
import { cn } from "./cn";

/** A raised panel on the page: for a box that is not a titled `Card` (a stat, a sign-in form). */
export const cardClass = "rounded-lg border bg-card text-card-foreground";

export function Card({
  title,
  children,
  className,
  actions,
}: {
  title?: string;
  children: React.ReactNode;
  className?: string;
  actions?: React.ReactNode;
}) {
  return (
    <section className={cn(cardClass, "p-4", className)}>
      {title ? (
        <div className="mb-3 flex items-center justify-between gap-2">
          <h2 className="font-semibold">{title}</h2>
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** What a list shows when it has nothing in it. */
export const emptyStateClass =
  "rounded-md border border-dashed border-input p-6 text-center text-sm text-muted-foreground";

export function EmptyState({ children }: { children: React.ReactNode }) {
  return <p className={emptyStateClass}>{children}</p>;
}

export function FormError({ message }: { message?: string | null }) {
  if (!message) return null;
  return (
    <p role="alert" className={alertVariants({ variant: "destructive" })}>
      {message}
    </p>
  );
}
