import { type ClassValue, clsx } from "clsx";
import { twMerge } from "tailwind-merge";

/**
 * Joins class names and lets a later Tailwind class win over an earlier one of the same kind, so a
 * caller's `className="px-2"` replaces a component's own `px-4` instead of fighting it in the
 * cascade (shadcn's `cn`).
 */
export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs));
}
