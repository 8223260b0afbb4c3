import { Form } from "react-router";
import { PERMISSIONS } from "../../access/permissions";
import { type ApiTokenItem, ApiTokenRow } from "../../components/settings/api-token-row";
import { Button } from "../../components/ui/button";
import { Card, EmptyState } from "../../components/ui/card";
import { useTranslation } from "../../i18n/use-translation";

const LABELS = new Map<string, string>(PERMISSIONS.map((p) => [p.key, p.label]));

/** A user's API tokens on their page, for holders of user.update: revocable, never readable. */
export function ApiTokensCard({ tokens, pendingId }: { tokens: ApiTokenItem[]; pendingId: string | null }) {
  const { t } = useTranslation();
  return (
    <Card title={t("users:apiTokens.title")}>
      {tokens.length === 0 ? (
        <EmptyState>{t("users:apiTokens.empty")}</EmptyState>
      ) : (
        <ul className="divide-y" data-testid="user-api-tokens">
          {tokens.map((token) => (
            <ApiTokenRow key={token.id} token={token} labels={LABELS}>
              <Form method="post">
                <input type="hidden" name="apiToken" value={token.id} />
                <Button
                  variant="secondary"
                  name="intent"
                  value="revoke-api-token"
                  pending={pendingId === token.id}
                  aria-label={t("users:apiTokens.revokeLabel", { name: token.name })}
                >
                  {t("users:apiTokens.revoke")}
                </Button>
              </Form>
            </ApiTokenRow>
          ))}
        </ul>
      )}
    </Card>
  );
}
