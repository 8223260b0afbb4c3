import { ChangePreview } from "../../components/access/change-preview";

// The unsaved matrix's effect on people, beside Save (decision 044).

export const PREVIEW_INTENT = "preview-matrix";

export function MatrixPreview({
  form,
  version,
}: {
  form: React.RefObject<HTMLFormElement | null>;
  version: number;
}) {
  return (
    <ChangePreview
      form={form}
      version={version}
      intent={PREVIEW_INTENT}
      action="/dashboard/access"
      testId="matrix-preview"
    />
  );
}
