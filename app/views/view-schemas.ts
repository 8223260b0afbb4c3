import { z } from "zod";

// The saved views' forms (docs/decisions/039-saved-views.md), shared by the browser (conform) and
// the server. Which list a view belongs to and what it may hold are the server's (saved-views.server.ts).

/** The lists a view can be saved for, each with its page. */
export const VIEW_LISTS = ["users", "audit"] as const;
export type ViewList = (typeof VIEW_LISTS)[number];

const LIST_PATHS: Record<ViewList, string> = {
  users: "/dashboard/users",
  audit: "/dashboard/logs",
};

/** How many views one person may keep, over every list. */
export const MAX_VIEWS_PER_PERSON = 50;

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

// NUL among them: PostgreSQL cannot store it.
const viewName = z
  .string()
  .trim()
  .min(1, "validation.name")
  .max(80, "validation.maxLength")
  .refine((v) => !CONTROL.test(v), "validation.oneLine");

// A malformed id names no view: said as one deleted meanwhile (400, as the form is malformed).
const viewId = z.string().uuid("views.notFound");

export const createViewSchema = z.object({
  list: z.enum(VIEW_LISTS),
  name: viewName,
  /** The list's address query as the page has it; normalised by the list's own schema before it is kept. */
  query: z.string().max(4000).default(""),
  /** Empty: personal. */
  sharedRoleId: z.string().max(100).optional(),
});

export const renameViewSchema = z.object({ id: viewId, name: viewName });

export const deleteViewSchema = z.object({ id: viewId });

/** A view as a list page and the palette show it. */
export type SavedViewItem = {
  id: string;
  list: ViewList;
  name: string;
  /** The normalised query ("" for the list as it opens), and the address that opens it. */
  query: string;
  url: string;
  /** The role it is shared with, or null for a personal view. */
  sharedWith: { id: string; name: string; label: string } | null;
  /** Whether this person may rename and delete it. */
  manageable: boolean;
  mine: boolean;
};

export function viewUrl(list: ViewList, query: string): string {
  return query ? `${LIST_PATHS[list]}?${query}` : LIST_PATHS[list];
}
