import { z } from "zod";

// Shared by the browser (conform) and the server (decision 039).

export const VIEW_LISTS = ["users", "audit"] as const;
export type ViewList = (typeof VIEW_LISTS)[number];

const LIST_PATHS: Record<ViewList, string> = {
  users: "/dashboard/users",
  audit: "/dashboard/logs",
};

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

// A malformed id names no view: said as one deleted meanwhile.
const viewId = z.string().uuid("views.notFound");

export const createViewSchema = z.object({
  list: z.enum(VIEW_LISTS),
  name: viewName,
  /** Normalised by the list's own schema before it is kept. */
  query: z.string().max(4000).default(""),
  sharedRoleId: z.string().max(100).optional(),
});

export const renameViewSchema = z.object({ id: viewId, name: viewName });

export const deleteViewSchema = z.object({ id: viewId });

export type SavedViewItem = {
  id: string;
  list: ViewList;
  name: string;
  /** "" for the list as it opens. */
  query: string;
  url: string;
  sharedWith: { id: string; name: string; label: string } | null;
  manageable: boolean;
  mine: boolean;
};

export function viewUrl(list: ViewList, query: string): string {
  return query ? `${LIST_PATHS[list]}?${query}` : LIST_PATHS[list];
}
