import { useState } from "react";
import { Form } from "react-router";
import type { AdminSessionRow } from "../../auth/sessions-admin.server";
import { useFormat } from "../../components/format";
import { useIsPending } from "../../components/forms/use-is-pending";
import { Badge } from "../../components/ui/badge";
import { Button } from "../../components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";

/** Tick and "End selected", or End on a row; rows of people one cannot manage have neither. */
export function SessionTable({ sessions }: { sessions: AdminSessionRow[] }) {
  const { t } = useTranslation();
  const { formatDateTime } = useFormat();
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const pending = useIsPending({ intent: "end-selected" });
  if (sessions.length === 0) return <p data-testid="no-sessions">{t("users:sessions.none")}</p>;
  const toggle = (id: string, on: boolean) =>
    setChosen((before) => {
      const after = new Set(before);
      if (on) after.add(id);
      else after.delete(id);
      return after;
    });
  return (
    <div className="flex flex-col gap-3">
      <Form method="post" id="end-selected" className="flex items-center gap-3">
        <input type="hidden" name="intent" value="end-selected" />
        {[...chosen].map((id) => (
          <input key={id} type="hidden" name="sessions" value={id} />
        ))}
        <Button variant="secondary" disabled={chosen.size === 0} pending={pending}>
          {t("users:sessions.endSelected", { count: chosen.size })}
        </Button>
      </Form>
      <Table caption={t("users:sessions.caption")} className="relative">
        <TableHead>
          <TableHeader>
            <span className="sr-only">{t("users:sessions.choose")}</span>
          </TableHeader>
          <TableHeader>{t("users:sessions.person")}</TableHeader>
          <TableHeader>{t("users:sessions.device")}</TableHeader>
          <TableHeader>{t("users:sessions.address")}</TableHeader>
          <TableHeader>{t("users:sessions.started")}</TableHeader>
          <TableHeader>{t("users:sessions.lastSeen")}</TableHeader>
          <TableHeader>
            <span className="sr-only">{t("users:sessions.actions")}</span>
          </TableHeader>
        </TableHead>
        <TableBody>
          {sessions.map((s) => (
            <TableRow key={s.id} data-testid="session-row">
              <TableCell>
                {s.mayEnd && !s.current ? (
                  <input
                    type="checkbox"
                    aria-label={t("users:sessions.chooseOne", { name: s.user.name, device: s.device })}
                    checked={chosen.has(s.id)}
                    onChange={(e) => toggle(s.id, e.target.checked)}
                    className="size-4"
                  />
                ) : null}
              </TableCell>
              <TableCell>
                <span className="font-medium">{s.user.name}</span>
                <span className="block text-xs text-muted-foreground">{s.user.email}</span>
              </TableCell>
              <TableCell>
                {s.device}
                {s.current ? (
                  <Badge variant="info" className="ml-2">
                    {t("users:sessions.thisOne")}
                  </Badge>
                ) : null}
              </TableCell>
              <TableCell>
                <code className="text-sm">{s.ip ?? "—"}</code>
              </TableCell>
              <TableCell>{formatDateTime(s.createdAt)}</TableCell>
              <TableCell>{formatDateTime(s.lastSeenAt)}</TableCell>
              <TableCell align="right">
                {s.mayEnd && !s.current ? (
                  <Form method="post">
                    <input type="hidden" name="intent" value="end" />
                    <input type="hidden" name="session" value={s.id} />
                    <Button size="xs" variant="secondary">
                      {t("users:sessions.end")}
                      <span className="sr-only">
                        {" "}
                        {t("users:sessions.ofPerson", { name: s.user.name, device: s.device })}
                      </span>
                    </Button>
                  </Form>
                ) : null}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
