import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useTranslation } from "../../i18n/use-translation";
import { focusRing } from "./button";
import { cn } from "./cn";

// Plain <table> semantics, so screen readers announce rows, columns and headers; the sort lives in the URL.

const cellPad = "px-3 py-2";

/** For a table the components below do not fit. */
export const tableStyles = {
  // relative: a visually hidden (absolute) label in a cell stays inside the scrolling frame instead
  // of widening the page beyond it.
  frame: "relative overflow-x-auto rounded-lg border bg-card text-card-foreground",
  head: "border-b bg-muted",
  row: "border-b last:border-0",
  selectedRow: "bg-primary/5",
  header: `${cellPad} whitespace-nowrap font-medium text-muted-foreground`,
  cell: `${cellPad} align-middle`,
} as const;

export function Table({
  caption,
  scrollable = true,
  className,
  children,
}: {
  /** Shown only to screen readers unless `captionVisible`. */
  caption?: string;
  /** A scrolling frame is a named, focusable region so a keyboard user can scroll it (axe scrollable-region-focusable). */
  scrollable?: boolean;
  className?: string;
  children: React.ReactNode;
}) {
  return (
    <div
      {...(scrollable ? { tabIndex: 0, role: "region", "aria-label": caption } : {})}
      className={cn(tableStyles.frame, className)}
    >
      <table className="w-full text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        {children}
      </table>
    </div>
  );
}

export function TableHead({ children }: { children: React.ReactNode }) {
  return (
    <thead className={tableStyles.head}>
      <tr>{children}</tr>
    </thead>
  );
}

export function TableBody({ children }: { children: React.ReactNode }) {
  return <tbody>{children}</tbody>;
}

export function TableRow({
  selected,
  className,
  ...rest
}: React.HTMLAttributes<HTMLTableRowElement> & { selected?: boolean }) {
  return (
    <tr
      data-selected={selected || undefined}
      className={cn(tableStyles.row, selected && tableStyles.selectedRow, className)}
      {...rest}
    />
  );
}

type Align = "left" | "right" | "center";
const alignClass: Record<Align, string> = { left: "text-left", right: "text-right", center: "text-center" };

export function TableHeader({
  align = "left",
  className,
  ...rest
}: React.ThHTMLAttributes<HTMLTableCellElement> & { align?: Align }) {
  return <th scope="col" className={cn(tableStyles.header, alignClass[align], className)} {...rest} />;
}

export function TableCell({
  align = "left",
  className,
  ...rest
}: React.TdHTMLAttributes<HTMLTableCellElement> & { align?: Align }) {
  return <td className={cn(tableStyles.cell, alignClass[align], className)} {...rest} />;
}

export type SortDirection = "asc" | "desc";

/** Tells assistive technology the current order with aria-sort. */
export function SortableHeader({
  column,
  children,
  defaultSort,
  defaultDirection = "desc",
  sortParam = "sort",
  dirParam = "dir",
  align = "left",
}: React.PropsWithChildren<{
  column: string;
  defaultSort?: string;
  defaultDirection?: SortDirection;
  sortParam?: string;
  dirParam?: string;
  align?: Align;
}>) {
  const [params] = useSearchParams();
  const active = (params.get(sortParam) ?? defaultSort) === column;
  const direction: SortDirection =
    params.get(dirParam) === "asc" ? "asc" : params.get(dirParam) === "desc" ? "desc" : defaultDirection;
  const next = new URLSearchParams(params);
  next.set(sortParam, column);
  next.set(dirParam, active && direction === "asc" ? "desc" : "asc");
  for (const name of ["page", "after", "before"]) next.delete(name);
  const Icon = !active ? ArrowUpDown : direction === "asc" ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      aria-sort={active ? (direction === "asc" ? "ascending" : "descending") : "none"}
      className={cn(tableStyles.header, "text-foreground", alignClass[align])}
    >
      <Link
        to={`?${next}`}
        preventScrollReset
        className={`inline-flex items-center gap-1 rounded-sm hover:underline ${focusRing}`}
      >
        {children}
        <Icon aria-hidden className={cn("size-3.5", !active && "opacity-50")} />
      </Link>
    </th>
  );
}

export function TableEmpty({ colSpan, children }: React.PropsWithChildren<{ colSpan: number }>) {
  return (
    <tr>
      <td colSpan={colSpan} className="p-6 text-center text-sm text-muted-foreground">
        {children}
      </td>
    </tr>
  );
}

export type RowSelection = {
  selected: string[];
  isSelected: (id: string) => boolean;
  toggle: (id: string) => void;
  toggleAll: () => void;
  clear: () => void;
  all: boolean | "mixed";
};

/** Ids that leave the list (another page, a deleted row) drop out. */
export function useRowSelection(ids: string[]): RowSelection {
  const [selected, setSelected] = useState<string[]>([]);
  const key = ids.join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: the joined key stands for the ids
  useEffect(() => {
    setSelected((current) => {
      const kept = current.filter((id) => ids.includes(id));
      return kept.length === current.length ? current : kept;
    });
  }, [key]);
  const isSelected = useCallback((id: string) => selected.includes(id), [selected]);
  const toggle = useCallback(
    (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id])),
    [],
  );
  const all: boolean | "mixed" =
    selected.length === 0 ? false : ids.every((id) => selected.includes(id)) ? true : "mixed";
  const toggleAll = useCallback(() => setSelected(all === true ? [] : [...ids]), [all, ids]);
  const clear = useCallback(() => setSelected([]), []);
  return useMemo(
    () => ({ selected, isSelected, toggle, toggleAll, clear, all }),
    [selected, isSelected, toggle, toggleAll, clear, all],
  );
}

export const checkboxClass = `size-4 rounded border-input accent-primary ${focusRing}`;

/** The mixed state is only settable from script. */
function Checkbox({
  checked,
  ...rest
}: Omit<React.InputHTMLAttributes<HTMLInputElement>, "checked" | "type"> & { checked: boolean | "mixed" }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = checked === "mixed";
  }, [checked]);
  return <input ref={ref} type="checkbox" checked={checked === true} className={checkboxClass} {...rest} />;
}

export function SelectAllHeader({ selection, label }: { selection: RowSelection; label?: string }) {
  const { t } = useTranslation();
  label ??= t("ui:selectAll");
  return (
    <th scope="col" className={`${cellPad} w-10`}>
      <Checkbox aria-label={label} checked={selection.all} onChange={selection.toggleAll} />
    </th>
  );
}

export function SelectRowCell({
  selection,
  id,
  label,
}: {
  selection: RowSelection;
  id: string;
  label: string;
}) {
  return (
    <td className={`${cellPad} w-10`}>
      <Checkbox aria-label={label} checked={selection.isSelected(id)} onChange={() => selection.toggle(id)} />
    </td>
  );
}
