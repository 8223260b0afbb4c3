import * as TabsPrimitive from "@radix-ui/react-tabs";
import { focusRing } from "./button";
import { cn } from "./cn";

// Radix gives the tablist its roles, arrow-key movement and aria-controls; this adds the look.

export const Tabs = TabsPrimitive.Root;

export function TabsList({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.List>) {
  return <TabsPrimitive.List className={cn("flex gap-1 overflow-x-auto border-b", className)} {...rest} />;
}

export function TabsTrigger({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={cn(
        "-mb-px whitespace-nowrap border-b-2 border-transparent px-3 py-2 text-sm font-medium text-muted-foreground hover:text-foreground data-[state=active]:border-primary data-[state=active]:text-primary",
        focusRing,
        className,
      )}
      {...rest}
    />
  );
}

export function TabsContent({ className, ...rest }: React.ComponentProps<typeof TabsPrimitive.Content>) {
  return <TabsPrimitive.Content className={cn("pt-4", focusRing, className)} {...rest} />;
}
