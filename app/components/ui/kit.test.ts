import { describe, expect, it } from "vitest";
import { badgeVariants } from "./badge";
import { buttonVariants } from "./button";
import { cn } from "./cn";

describe("the UI kit's class names", () => {
  // A caller's padding or size replaces the component's own, instead of both reaching the cascade.
  it("lets a later class win over one of the same kind", () => {
    expect(cn("px-4 py-2 text-sm", "px-2 py-1 text-xs")).toBe("px-2 py-1 text-xs");
    expect(cn("text-sm text-primary", "text-xs")).toBe("text-primary text-xs");
  });

  it("merges a className given to a button look", () => {
    const classes = buttonVariants({ variant: "ghost", size: "icon", className: "p-1" }).split(" ");
    expect(classes).toContain("p-1");
    expect(classes).not.toContain("p-2");
  });

  it("draws in theme tokens, never palette shades", () => {
    const all = [
      ...(["default", "secondary", "outline", "ghost", "destructive", "link"] as const).map((variant) =>
        buttonVariants({ variant }),
      ),
      ...(["neutral", "info", "success", "warning", "destructive"] as const).map((variant) =>
        badgeVariants({ variant }),
      ),
    ].join(" ");
    expect(all).not.toMatch(/-(slate|gray|red|amber|emerald|indigo)-\d|-(white|black)\b/);
  });
});
