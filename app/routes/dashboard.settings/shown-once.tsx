import { Alert } from "../../components/ui/alert";

/** A secret the server shows only in this answer (a webhook's signing secret, a directory's token). */
export function ShownOnce({
  value,
  note,
  testId,
}: {
  value: string | undefined;
  note: string;
  testId: string;
}) {
  if (!value) return null;
  return (
    <Alert variant="warning" framed>
      <p className="font-medium">{note}</p>
      <code className="mt-1 block break-all select-all" data-testid={testId}>
        {value}
      </code>
    </Alert>
  );
}
