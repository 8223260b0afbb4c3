import { useEffect, useRef } from "react";
import type { SavedViewItem } from "../../views/view-schemas";

// What the Views control's forms share: where they post (app/routes/api.views.ts) and its answers.

export const VIEWS_API = "/api/views";

export type ViewsAnswer = { ok: boolean; intent?: string; view?: SavedViewItem; name?: string };

export type Role = { id: string; name: string; label: string };

/**
 * Calls `onOk` once per successful answer of the fetcher, as soon as it arrives: before the page's
 * data is loaded again, which may unmount the form.
 */
export function useAnswered(fetcher: { data?: ViewsAnswer }, onOk: (answer: ViewsAnswer) => void) {
  const seen = useRef<ViewsAnswer | undefined>(undefined);
  const callback = useRef(onOk);
  callback.current = onOk;
  useEffect(() => {
    if (!fetcher.data || fetcher.data === seen.current) return;
    seen.current = fetcher.data;
    if (fetcher.data.ok) callback.current(fetcher.data);
  }, [fetcher.data]);
}
