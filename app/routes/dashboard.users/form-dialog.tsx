import { useRef, useState } from "react";
import { focusUpdates } from "../../components/toaster";
import { Dialog, DialogContent, DialogTrigger } from "../../components/ui/dialog";
import { useSubmissionDone } from "../../components/users/use-submission-done";

/**
 * A dialog holding one form of the page. It closes once a submission of `intent` succeeded and
 * then hands focus to the toast that says so (not back to the trigger, which would hide the news);
 * a refusal keeps it open with the errors. Closed, its form is gone, so it reopens empty.
 */
export function FormDialog({
  intent,
  trigger,
  title,
  description,
  defaultOpen = false,
  children,
}: {
  intent: string;
  /** Opens with the page (the command palette's "Invite a user" links to `?new=invite`). */
  defaultOpen?: boolean;
  trigger: React.ReactNode;
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const succeeded = useRef(false);
  useSubmissionDone(intent, (ok) => {
    if (!ok || !open) return;
    succeeded.current = true;
    setOpen(false);
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent
        title={title}
        description={description}
        onCloseAutoFocus={(event) => {
          if (!succeeded.current) return;
          succeeded.current = false;
          event.preventDefault();
          focusUpdates();
        }}
      >
        {children}
      </DialogContent>
    </Dialog>
  );
}
