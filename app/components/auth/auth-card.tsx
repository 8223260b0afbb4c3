/** The centred card every signed-out page (sign in, register, reset, invite) sits in. */
import { cardClass } from "../ui/card";
import { cn } from "../ui/cn";
export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="grid min-h-dvh place-items-center p-4">
      <div className={cn(cardClass, "w-full max-w-sm p-6 shadow-sm")}>
        <h1 className="text-xl font-semibold">{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function AuthLinks({ children }: { children: React.ReactNode }) {
  return <p className="mt-4 flex flex-wrap gap-x-4 gap-y-1 text-sm">{children}</p>;
}
