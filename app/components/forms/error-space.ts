import { createContext } from "react";

/**
 * Whether a field keeps its error line's space while it has no error. A field is checked when it
 * is left, which happens on the press of the next click: a line appearing then moves whatever is
 * under the pointer, and the click lands nowhere. Dialogs (app/components/ui/dialog.tsx) turn this
 * on, so nothing in them moves when a field turns invalid; pages keep their compact layout.
 */
export const ReserveErrorSpace = createContext(false);
