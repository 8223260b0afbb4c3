import { Link, useSearchParams } from "react-router";

/** Previous/next links that keep every other list parameter in the URL. */
export function Pagination({ page, size, total }: { page: number; size: number; total: number }) {
  const [params] = useSearchParams();
  const pages = Math.max(1, Math.ceil(total / size));
  const to = (p: number) => {
    const next = new URLSearchParams(params);
    next.set("page", String(p));
    return `?${next}`;
  };
  const linkClass = "rounded-md border border-slate-300 px-3 py-1 text-sm dark:border-slate-600";
  return (
    <nav aria-label="Pagination" className="mt-4 flex items-center justify-between gap-2 text-sm">
      <p>
        {total === 0 ? "No results" : `${(page - 1) * size + 1}–${Math.min(page * size, total)} of ${total}`}
      </p>
      <div className="flex gap-2">
        {page > 1 ? (
          <Link className={linkClass} to={to(page - 1)} rel="prev">
            Previous
          </Link>
        ) : null}
        <span aria-current="page" className="px-2 py-1">
          Page {page} of {pages}
        </span>
        {page < pages ? (
          <Link className={linkClass} to={to(page + 1)} rel="next">
            Next
          </Link>
        ) : null}
      </div>
    </nav>
  );
}
