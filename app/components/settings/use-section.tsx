import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { useIsPending } from "../forms/use-is-pending";
import { FormError } from "../ui/card";

type SectionResult = {
  ok: boolean;
  intent?: string;
  errors: Record<string, string>;
  formError: string | null;
  message?: string;
};

/**
 * One fetcher per Settings section, so each has its own pending state, errors and status line.
 * Forms are cleared after a success (passwords are never kept on screen).
 */
export function useSection(intent: string, opts: { resetOnSuccess?: boolean } = {}) {
  const fetcher = useFetcher<SectionResult>();
  const formRef = useRef<HTMLFormElement>(null);
  const pending = useIsPending({ intent });
  const result =
    fetcher.data?.intent === intent || fetcher.data?.intent === undefined ? fetcher.data : undefined;
  useEffect(() => {
    if (opts.resetOnSuccess && fetcher.state === "idle" && result?.ok) formRef.current?.reset();
  }, [fetcher.state, result, opts.resetOnSuccess]);
  return {
    fetcher,
    formRef,
    pending,
    errors: (result?.errors ?? {}) as Record<string, string | undefined>,
    status: <SectionStatus result={result} />,
  };
}

function SectionStatus({ result }: { result: SectionResult | undefined }) {
  return (
    <>
      <FormError message={result?.formError} />
      <p role="status" aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
        {result?.ok ? result.message : null}
      </p>
    </>
  );
}
