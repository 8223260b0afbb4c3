import { z } from "zod";
import { labelTranslationsSchema } from "./label-translations";
import { MENU_ICON_NAMES, MENU_PATHS } from "./menu";
import { PERMISSION_KEYS } from "./permissions";

const MENU_TITLE_MAX = 60;

export const menuItemSchema = z.object({
  id: z.string().uuid(),
  title: z.string().trim().min(1, "validation.title").max(MENU_TITLE_MAX),
  /** Empty ones fall back to `title`. */
  translations: labelTranslationsSchema(MENU_TITLE_MAX),
  url: z
    .string()
    .trim()
    .regex(/^\/[A-Za-z0-9/_-]*$/, "validation.menuPath")
    // Routes match without regard to case or a trailing slash, so two items cannot reach one page by two URLs.
    .transform((url) =>
      url
        .toLowerCase()
        .replace(/\/{2,}/g, "/")
        .replace(/(.)\/$/, "$1"),
    ),
  icon: z.enum(MENU_ICON_NAMES, {
    message: "access.menuIcon",
  }),
  requiredPermission: z.enum(PERMISSION_KEYS as [string, ...string[]], {
    message: "access.menuPermission",
  }),
});

/** Duplicate pages are checked here, so the browser says so before sending. */
export const saveMenuSchema = z.object({
  items: z
    .array(menuItemSchema)
    .min(1, "access.menuEmpty")
    .max(100)
    .superRefine((items, ctx) => {
      const seenIds = new Set<string>();
      const seenUrls = new Map<string, string>();
      for (const [i, item] of items.entries()) {
        if (seenIds.has(item.id))
          ctx.addIssue({ code: "custom", path: [i, "id"], message: "access.menuItemOnce" });
        seenIds.add(item.id);
        const other = seenUrls.get(item.url);
        if (other !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [i, "url"],
            message: "access.menuUrlTaken",
            params: { title: other, url: item.url },
          });
        else seenUrls.set(item.url, item.title);
      }
    }),
});

export const addMenuItemSchema = z.object({
  title: z.string().trim().min(1, "validation.title").max(60),
  url: z.enum(MENU_PATHS, { message: "access.menuPathUnknown" }),
  icon: z.enum(MENU_ICON_NAMES, { message: "access.menuIcon" }),
  requiredPermission: z.enum(PERMISSION_KEYS as [string, ...string[]], {
    message: "access.menuPermission",
  }),
});
