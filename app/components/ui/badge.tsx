import { cva, type VariantProps } from "class-variance-authority";
import { cn } from "./cn";

// A status reads as its token's text on a tenth of that token's fill: AA in both themes
// (app/app.css picks the shades for it).
export const badgeVariants = cva(
  "inline-flex shrink-0 items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
  {
    variants: {
      variant: {
        neutral: "bg-muted text-foreground ring-border",
        info: "bg-primary/10 text-primary ring-primary/30",
        success: "bg-success/10 text-success ring-success/30",
        warning: "bg-warning/10 text-warning ring-warning/30",
        destructive: "bg-destructive/10 text-destructive ring-destructive/30",
      },
    },
    defaultVariants: { variant: "neutral" },
  },
);

export type BadgeVariant = NonNullable<VariantProps<typeof badgeVariants>["variant"]>;

/** A short status label ("Active", "Disabled", "This session"); never wraps, never shrinks away. */
export function Badge({
  variant,
  className,
  children,
  ...rest
}: React.HTMLAttributes<HTMLSpanElement> & { variant?: BadgeVariant }) {
  return (
    <span className={cn(badgeVariants({ variant }), className)} {...rest}>
      {children}
    </span>
  );
}

/** The count on an icon button (unread notifications, running tasks): a solid dot in a corner. */
export const countBadgeVariants = cva(
  "absolute -top-0.5 -right-0.5 grid min-w-5 place-items-center rounded-full px-1 text-xs font-semibold",
  {
    variants: {
      variant: {
        default: "bg-primary text-primary-foreground",
        destructive: "bg-destructive text-destructive-foreground",
      },
    },
    defaultVariants: { variant: "default" },
  },
);
