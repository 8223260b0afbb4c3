import { cva, type VariantProps } from "class-variance-authority";
import { LoaderCircle } from "lucide-react";
import { cn } from "./cn";

/** The one focus ring: drawn in the ring token, outside the control (app/app.css). */
export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring";

/**
 * Every button look, also for a link that acts as a button (`<Link className={buttonVariants(…)}>`).
 * `secondary` is the bordered neutral button of forms and dialogs; `outline` the same without a fill;
 * `link` looks like text (with `size="inline"` inside a sentence).
 */
const buttonStyles = cva(
  `inline-flex items-center justify-center gap-2 rounded-md text-sm font-semibold disabled:opacity-60 aria-disabled:opacity-60 ${focusRing}`,
  {
    variants: {
      variant: {
        default: "bg-primary text-primary-foreground hover:bg-primary/90",
        secondary: "border border-input bg-card text-card-foreground shadow-xs hover:bg-accent",
        outline: "border border-input bg-transparent hover:bg-accent hover:text-accent-foreground",
        ghost: "hover:bg-accent hover:text-accent-foreground",
        destructive: "bg-destructive text-destructive-foreground hover:bg-destructive/90",
        link: "text-primary underline underline-offset-2 hover:decoration-2",
      },
      size: {
        default: "px-4 py-2",
        sm: "px-3 py-1.5",
        xs: "gap-1 px-2 py-1 text-xs",
        icon: "p-2",
        inline: "p-0",
      },
    },
    defaultVariants: { variant: "default", size: "default" },
  },
);

type ButtonStyle = VariantProps<typeof buttonStyles>;
export type ButtonVariant = NonNullable<ButtonStyle["variant"]>;

/** The classes of a button look; a `className` given here wins over the look's own (`cn`). */
export function buttonVariants({ className, ...style }: ButtonStyle & { className?: string } = {}) {
  return cn(buttonStyles(style), className);
}

type ButtonProps = React.ButtonHTMLAttributes<HTMLButtonElement> &
  ButtonStyle & {
    pending?: boolean;
    ref?: React.Ref<HTMLButtonElement>;
  };

/**
 * A button that shows a spinner and is marked busy while its form is submitting. Busy, it refuses
 * clicks but stays focusable: a disabled button drops the keyboard's focus to the page's start.
 */
export function Button({
  pending,
  variant,
  size,
  className,
  children,
  disabled,
  onClick,
  ...rest
}: ButtonProps) {
  return (
    <button
      type="submit"
      aria-busy={pending || undefined}
      aria-disabled={pending || undefined}
      disabled={disabled}
      className={buttonVariants({ variant, size, className })}
      onClick={(event) => {
        if (pending) event.preventDefault();
        else onClick?.(event);
      }}
      {...rest}
    >
      {pending ? <LoaderCircle aria-hidden className="size-4 animate-spin" /> : null}
      {children}
    </button>
  );
}
