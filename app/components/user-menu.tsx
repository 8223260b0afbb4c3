import { LogOut } from "lucide-react";
import { Form } from "react-router";
import { usePopover } from "./ui/use-popover";

export function UserMenu({ name, email }: { name: string; email: string }) {
  const { open, setOpen, root } = usePopover();

  return (
    <div className="relative" ref={root}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="user-menu"
        aria-label="Open user menu"
        onClick={() => setOpen((v) => !v)}
        className="flex items-center gap-2 rounded-md px-2 py-1 hover:bg-slate-200 dark:hover:bg-slate-800"
      >
        <span
          aria-hidden
          className="grid size-8 place-items-center rounded-full bg-indigo-600 text-sm font-semibold text-white"
        >
          {name.slice(0, 1).toUpperCase()}
        </span>
        <span className="hidden text-sm sm:inline">{name}</span>
      </button>
      <div
        id="user-menu"
        hidden={!open}
        className="absolute right-0 z-40 mt-2 w-60 rounded-md border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        <p className="px-2 py-1 text-sm font-medium">{name}</p>
        <p className="truncate px-2 pb-2 text-xs text-slate-600 dark:text-slate-400">{email}</p>
        <Form method="post" action="/logout">
          <button
            type="submit"
            className="flex w-full items-center gap-2 rounded px-2 py-2 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          >
            <LogOut aria-hidden className="size-4" /> Sign out
          </button>
        </Form>
      </div>
    </div>
  );
}
