import { useRouteLoaderData } from "react-router";
import { appNameOf } from "../page-title";
import { cardClass } from "../ui/card";
import { cn } from "../ui/cn";

/**
 * The product's mark and name above every signed-out card: the name the header shows (the root
 * loader's APP_NAME, which Settings may change), so a person knows where they are signing in.
 */
function ProductName() {
  const name = appNameOf(useRouteLoaderData("root") as { appName?: unknown } | undefined);
  return (
    <p className="mb-4 flex items-center justify-center gap-2 text-center text-lg font-semibold break-words">
      <img src="/favicon.svg" alt="" width={28} height={28} className="size-7 shrink-0" />
      <span className="min-w-0">{name}</span>
    </p>
  );
}

/** The centred frame of a signed-out page: the product's name, then the card (sign in, two-factor). */
export function AuthFrame({ children }: { children: React.ReactNode }) {
  return (
    <main className="grid min-h-dvh place-items-center p-4">
      <div className="w-full max-w-sm">
        <ProductName />
        <div className={cn(cardClass, "p-6 shadow-sm")}>{children}</div>
      </div>
    </main>
  );
}

/** The centred card every signed-out page (sign in, register, reset, invite) sits in. */
export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <AuthFrame>
      <h1 className="text-xl font-semibold">{title}</h1>
      {children}
    </AuthFrame>
  );
}

export function AuthLinks({ children }: { children: React.ReactNode }) {
  return <p className="mt-4 flex flex-wrap gap-x-4 gap-y-1 text-sm">{children}</p>;
}
