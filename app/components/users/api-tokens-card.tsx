import { Form } from "react-router";
import { PERMISSIONS } from "../../access/permissions";
import { type ApiTokenItem, ApiTokenRow } from "../settings/api-tokens-section";
import { Button } from "../ui/button";
import { Card, EmptyState } from "../ui/card";

const LABELS = new Map<string, string>(PERMISSIONS.map((p) => [p.key, p.label]));

/** A user's API tokens on their page, for holders of user.update: revocable, never readable. */
export function ApiTokensCard({ tokens, pendingId }: { tokens: ApiTokenItem[]; pendingId: string | null }) {
  return (
    <Card title="API tokens">
      {tokens.length === 0 ? (
        <EmptyState>No API tokens.</EmptyState>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="user-api-tokens">
          {tokens.map((t) => (
            <ApiTokenRow key={t.id} token={t} labels={LABELS}>
              <Form method="post">
                <input type="hidden" name="apiToken" value={t.id} />
                <Button
                  variant="secondary"
                  name="intent"
                  value="revoke-api-token"
                  pending={pendingId === t.id}
                  aria-label={`Revoke the API token ${t.name}`}
                >
                  Revoke
                </Button>
              </Form>
            </ApiTokenRow>
          ))}
        </ul>
      )}
    </Card>
  );
}
