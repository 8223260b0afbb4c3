/** The centred card every signed-out page (sign in, register, reset, invite) sits in. */
export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="grid min-h-dvh place-items-center p-4">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold">{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function AuthLinks({ children }: { children: React.ReactNode }) {
  return <p className="mt-4 flex flex-wrap gap-x-4 gap-y-1 text-sm">{children}</p>;
}

export const linkClass = "text-indigo-700 underline dark:text-indigo-300";

export function Notice({ children }: { children: React.ReactNode }) {
  return (
    <p
      role="status"
      className="mt-3 rounded bg-emerald-50 p-2 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"
    >
      {children}
    </p>
  );
}
