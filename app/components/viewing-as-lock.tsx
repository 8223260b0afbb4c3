import { Lock } from "lucide-react";
import { createContext, useContext, useId } from "react";
import { type OWN_ACCOUNT_INTENTS, type OwnAccountPage, refusedWhileViewingAs } from "../auth/viewing-as";
import { useTranslation } from "../i18n/use-translation";
import { alertVariants } from "./ui/alert";
import { cn } from "./ui/cn";

// The server's gate refuses these forms while viewing as someone; they are shown locked before anyone types.

const ViewingAs = createContext<{ name: string } | null>(null);

export function ViewingAsProvider({ name, children }: { name: string | null; children: React.ReactNode }) {
  return <ViewingAs.Provider value={name === null ? null : { name }}>{children}</ViewingAs.Provider>;
}

type Intent<P extends OwnAccountPage> = (typeof OWN_ACCOUNT_INTENTS)[P][number];

/** `ownRecord`: every form of a page about the viewed person's own account, which its route refuses whole. */
type LockOf<P extends OwnAccountPage> = { page: P; intents: readonly Intent<P>[] } | { ownRecord: boolean };

function covers<P extends OwnAccountPage>(lock: LockOf<P>): boolean {
  if ("ownRecord" in lock) return lock.ownRecord;
  return lock.intents.some((intent) => refusedWhileViewingAs(lock.page, intent));
}

function useViewingAsLock<P extends OwnAccountPage>(lock: LockOf<P>): string | null {
  const viewing = useContext(ViewingAs);
  const { t } = useTranslation();
  if (!viewing || !covers(lock)) return null;
  return t("shell:impersonation.locked", { name: viewing.name });
}

/** Open, a plain div with the same classes, so no needless group is announced. */
export function ViewingAsLock<P extends OwnAccountPage>({
  lock,
  note = true,
  className,
  children,
}: {
  lock: LockOf<P>;
  note?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  const reason = useViewingAsLock(lock);
  const id = useId();
  if (reason === null) return <div className={cn("min-w-0", className)}>{children}</div>;
  return (
    <fieldset
      disabled
      aria-describedby={note ? id : undefined}
      className={cn("flex min-w-0 flex-col gap-2", className)}
      data-viewing-as-lock=""
    >
      {note ? (
        <p id={id} className={cn(alertVariants({ variant: "info" }), "flex items-start gap-2")}>
          <Lock aria-hidden className="mt-0.5 size-4 shrink-0" />
          <span>{reason}</span>
        </p>
      ) : null}
      {children}
    </fieldset>
  );
}
