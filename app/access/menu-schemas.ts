import { z } from "zod";
import { MENU_ICON_NAMES } from "./menu";
import { PERMISSION_KEYS } from "./permissions";

// The menu editor's schemas, read by the action and by the browser (the form pipeline).

export const menuItemSchema = z.object({
  id: z.string().uuid(),
  title: z.string().trim().min(1, "Enter a title.").max(60),
  url: z
    .string()
    .trim()
    .regex(/^\/[A-Za-z0-9/_-]*$/, "Use a path inside the app, such as /dashboard/reports.")
    // Routes match without regard to case or a trailing slash: one spelling per page, so two
    // items cannot lead to the same page under different URLs.
    .transform((url) =>
      url
        .toLowerCase()
        .replace(/\/{2,}/g, "/")
        .replace(/(.)\/$/, "$1"),
    ),
  icon: z.enum(MENU_ICON_NAMES, {
    message: "Choose one of the listed icons.",
  }),
  requiredPermission: z.enum(PERMISSION_KEYS as [string, ...string[]], {
    message: "Choose a permission from the list.",
  }),
});

/**
 * The whole menu editor in one form: every item's fields, in the order they are to appear. Two
 * items may not lead to the same page (checked here, so the browser says so before sending).
 */
export const saveMenuSchema = z.object({
  items: z
    .array(menuItemSchema)
    .min(1, "There is no menu item to save.")
    .max(100)
    .superRefine((items, ctx) => {
      const seenIds = new Set<string>();
      const seenUrls = new Map<string, string>();
      for (const [i, item] of items.entries()) {
        if (seenIds.has(item.id))
          ctx.addIssue({ code: "custom", path: [i, "id"], message: "Each item once." });
        seenIds.add(item.id);
        const other = seenUrls.get(item.url);
        if (other !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [i, "url"],
            message: `"${other}" already links to ${item.url}.`,
          });
        else seenUrls.set(item.url, item.title);
      }
    }),
});
