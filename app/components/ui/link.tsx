import { cva } from "class-variance-authority";
import { focusRing } from "./button";

/**
 * The one link look. `default` is underlined, for links inside text (WCAG 1.4.1: not told apart by
 * colour alone); `quiet` underlines on hover, for a name that is plainly a link where it stands
 * (the first cell of a table row, a list of people).
 */
export const linkVariants = cva(`rounded-sm text-primary ${focusRing}`, {
  variants: {
    variant: {
      default: "underline underline-offset-2 hover:decoration-2",
      quiet: "font-medium hover:underline",
    },
  },
  defaultVariants: { variant: "default" },
});
