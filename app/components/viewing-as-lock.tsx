import { Lock } from "lucide-react";
import { createContext, useContext, useId } from "react";
import { type OWN_ACCOUNT_INTENTS, type OwnAccountPage, refusedWhileViewingAs } from "../auth/viewing-as";
import { useTranslation } from "../i18n/use-translation";
import { alertVariants } from "./ui/alert";
import { cn } from "./ui/cn";

// While a super admin views as someone, the forms only that person may send (app/auth/viewing-as.ts,
// refused by the server's access gate) are shown locked with the reason, before anyone types:
// one disabled fieldset (every control in it, keyboard included) with one note.

/** Whom the session is viewing as, or null; provided once by the dashboard shell. */
const ViewingAs = createContext<{ name: string } | null>(null);

export function ViewingAsProvider({ name, children }: { name: string | null; children: React.ReactNode }) {
  return <ViewingAs.Provider value={name === null ? null : { name }}>{children}</ViewingAs.Provider>;
}

type Intent<P extends OwnAccountPage> = (typeof OWN_ACCOUNT_INTENTS)[P][number];

/**
 * What a lock covers: forms sending some of a page's listed intents, or every form of a page
 * about an account when it is the viewed person's own (`ownRecord`), which its route refuses whole.
 */
type LockOf<P extends OwnAccountPage> = { page: P; intents: readonly Intent<P>[] } | { ownRecord: boolean };

function covers<P extends OwnAccountPage>(lock: LockOf<P>): boolean {
  if ("ownRecord" in lock) return lock.ownRecord;
  return lock.intents.some((intent) => refusedWhileViewingAs(lock.page, intent));
}

/** Why those forms are closed to this session, or null while they are open. */
function useViewingAsLock<P extends OwnAccountPage>(lock: LockOf<P>): string | null {
  const viewing = useContext(ViewingAs);
  const { t } = useTranslation();
  if (!viewing || !covers(lock)) return null;
  return t("shell:impersonation.locked", { name: viewing.name });
}

/**
 * Forms that only the viewed person may send, locked while viewing as them: one disabled fieldset
 * under the reason. Open, it is a plain div with the same classes (the page looks the same, and
 * no needless group is announced). `note: false` for a second part of a section whose first part
 * already says why (a card's header button).
 */
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
