import { cva, type VariantProps } from "class-variance-authority";
import { cn } from "./cn";

/**
 * A notice in the page's flow: what went wrong, what worked, what to watch. The text takes the
 * status token over a tenth of its fill, AA in both themes (app/app.css). Give `role="alert"` or
 * `role="status"` where it appears after an action.
 */
export const alertVariants = cva("rounded-md p-2 text-sm", {
  variants: {
    variant: {
      info: "bg-primary/10 text-foreground",
      success: "bg-success/10 text-success",
      warning: "bg-warning/10 text-warning",
      destructive: "bg-destructive/10 text-destructive",
    },
    /** `framed` adds a border and more room, for a box that holds fields or buttons. */
    framed: {
      true: "border p-3",
      false: "",
    },
  },
  compoundVariants: [
    { variant: "info", framed: true, class: "border-primary/40" },
    { variant: "success", framed: true, class: "border-success/40" },
    { variant: "warning", framed: true, class: "border-warning/40" },
    { variant: "destructive", framed: true, class: "border-destructive/40" },
  ],
  defaultVariants: { variant: "info", framed: false },
});

export function Alert({
  variant,
  framed,
  className,
  ...rest
}: React.HTMLAttributes<HTMLDivElement> & VariantProps<typeof alertVariants>) {
  return <div className={cn(alertVariants({ variant, framed }), className)} {...rest} />;
}
