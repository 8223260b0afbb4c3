import type { ReactNode } from "react";

/** A Settings page whose form is not a card of its own (single sign-on, directories): its title. */
export function SettingsSubpage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-4">
      <h2 className="text-xl font-semibold">{title}</h2>
      {children}
    </div>
  );
}
