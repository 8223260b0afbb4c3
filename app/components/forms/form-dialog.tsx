import { useState } from "react";
import { Dialog, DialogContent, DialogTrigger } from "../ui/dialog";
import { useSubmissionDone } from "../users/use-submission-done";

/**
 * A dialog holding one form of the page. It closes once a submission of `intent` succeeded with a
 * redirect (a success answered in place stays, for the form to show what it brought), focus
 * going back to its trigger while the toast announces the news; a refusal keeps it open with the
 * errors. Closed, its form is gone, so it reopens empty.
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
  useSubmissionDone(intent, (ok, answer) => {
    if (!ok || !open) return;
    // A success answered in place (not redirected) has more to show in the dialog.
    if (answer?.ok === true && answer.intent === intent) return;
    setOpen(false);
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>{trigger}</DialogTrigger>
      <DialogContent title={title} description={description}>
        {children}
      </DialogContent>
    </Dialog>
  );
}
