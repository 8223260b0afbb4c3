import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { permissionLabel } from "../../access/permission-labels";
import type { PermissionKey } from "../../access/permissions";
import { useTranslation } from "../../i18n/use-translation";

// Before a save, who would gain and lose what (decision 044): the unsaved form is sent under a
// `preview-…` intent, answered by the same simulate() as POST /api/access/simulate, nothing
// written. The role matrix, the grant form and the bulk bar's role acts show it.

type Shift = {
  user: { id: string; name: string };
  permission: string;
  team: { id: string; name: string } | null;
};
export type PreviewAnswer = {
  intent: `preview-${string}`;
  preview: { gains: Shift[]; losses: Shift[]; gainsTotal: number; lossesTotal: number } | null;
  /** Set, with no preview, when more people would change than a preview reads. */
  tooMany?: number;
};

/** A preview writes nothing: the page need not load again after one. */
export function isPreview(form: FormData | undefined): boolean {
  return String(form?.get("intent") ?? "").startsWith("preview-");
}
const NAMES = 20;
const WAIT_MS = 400;

type Line = { direction: "gain" | "lose"; permission: string; people: string[] };

function lines(shifts: Shift[], direction: Line["direction"]): Line[] {
  const byPermission = new Map<string, Set<string>>();
  for (const s of shifts) {
    const who = s.team ? `${s.user.name} (${s.team.name})` : s.user.name;
    byPermission.set(s.permission, (byPermission.get(s.permission) ?? new Set()).add(who));
  }
  return [...byPermission].map(([permission, people]) => ({ direction, permission, people: [...people] }));
}

/**
 * Asks again `WAIT_MS` after the last change; `version` moves with every change to the form and
 * 0 asks nothing. `action`: the route that answers `intent` (the page's own when left out).
 */
export function ChangePreview({
  form,
  version,
  intent,
  action,
  testId,
}: {
  form: React.RefObject<HTMLFormElement | null>;
  version: number;
  intent: PreviewAnswer["intent"];
  action?: string;
  testId: string;
}) {
  const { t } = useTranslation();
  const fetcher = useFetcher<PreviewAnswer>();
  const submit = useRef(fetcher.submit);
  submit.current = fetcher.submit;
  useEffect(() => {
    if (version === 0 || !form.current) return;
    const timer = setTimeout(() => {
      if (!form.current) return;
      const data = new FormData(form.current);
      data.set("intent", intent);
      submit.current(data, { method: "post", action });
    }, WAIT_MS);
    return () => clearTimeout(timer);
  }, [version, form, intent, action]);
  const answer = fetcher.data?.intent === intent ? fetcher.data : null;
  const preview = answer?.preview ?? null;
  const busy = fetcher.state !== "idle";
  const all = preview ? [...lines(preview.gains, "gain"), ...lines(preview.losses, "lose")] : [];
  if (version === 0) return null;
  return (
    <div className="basis-full text-sm" data-testid={testId} aria-busy={busy} aria-live="polite">
      {busy && !answer ? (
        <p className="text-muted-foreground">{t("access:matrix.preview.checking")}</p>
      ) : null}
      {answer?.tooMany ? <p>{t("access:matrix.preview.tooMany", { count: answer.tooMany })}</p> : null}
      {preview && all.length === 0 ? <p>{t("access:matrix.preview.none")}</p> : null}
      {all.length ? (
        <ul className="flex flex-col gap-1">
          {all.map((line) => {
            const shown = line.people.slice(0, NAMES).join(", ");
            const more = line.people.length - NAMES;
            return (
              <li key={`${line.direction}:${line.permission}`}>
                <span className={line.direction === "gain" ? "font-medium" : "font-medium text-destructive"}>
                  {t(`access:matrix.preview.${line.direction}`, {
                    count: line.people.length,
                    permission: permissionLabel(t, line.permission as PermissionKey),
                  })}
                </span>{" "}
                {shown}
                {more > 0 ? ` ${t("access:matrix.preview.more", { count: more })}` : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}
