import { cva, type VariantProps } from "class-variance-authority";
import { Link, type LinkProps } from "react-router";
import { focusRing } from "./button";
import { cn } from "./cn";

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

export type LinkVariant = NonNullable<VariantProps<typeof linkVariants>["variant"]>;

/** A router link in the kit's link style. */
export function TextLink({
  variant,
  className,
  ...rest
}: LinkProps & React.RefAttributes<HTMLAnchorElement> & { variant?: LinkVariant }) {
  return <Link className={cn(linkVariants({ variant }), className)} {...rest} />;
}
