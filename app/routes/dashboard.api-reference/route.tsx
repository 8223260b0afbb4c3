import { apiReference } from "../../api-docs/reference.server";
import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { Card } from "../../components/ui/card";
import { linkVariants } from "../../components/ui/link";
import { tableStyles } from "../../components/ui/table";
import { useTranslation } from "../../i18n/use-translation";
import type { Route } from "./+types/route";

// The API's description for people: what GET /api/openapi.json says, by tag, on one page.

export async function loader(args: Route.LoaderArgs) {
  await requirePermission(args, "dashboard.access");
  return { tags: apiReference() };
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "apiReference");

export default function ApiReference({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold">{t("settings:apiReference.title")}</h1>
        <p className="text-sm text-muted-foreground">
          {t("settings:apiReference.intro")}{" "}
          <a href="/api/openapi.json" className={linkVariants()}>
            {t("settings:apiReference.download")}
          </a>
        </p>
      </div>
      {loaderData.tags.map(({ tag, operations }) => (
        <Card key={tag} className="p-4">
          <h2 className="mb-2 text-lg font-semibold">{tag}</h2>
          <ul className="flex flex-col divide-y">
            {operations.map((op) => (
              <li key={op.id} className="py-2">
                <details>
                  <summary className="cursor-pointer rounded-sm focus-visible:outline-2 focus-visible:outline-ring">
                    <code className="mr-2 font-semibold">{op.method}</code>
                    <code>{op.path}</code>
                    <span className="ml-2 text-sm text-muted-foreground">{op.summary}</span>
                  </summary>
                  <div className="mt-2 flex flex-col gap-3 pl-4 text-sm">
                    <p>
                      {t("settings:apiReference.auth")}:{" "}
                      {op.auth.length
                        ? op.auth.join(t("settings:apiReference.or"))
                        : t("settings:apiReference.public")}
                    </p>
                    {op.parameters.length ? (
                      <table className="w-full max-w-xl text-left">
                        <caption className="sr-only">{t("settings:apiReference.parameters")}</caption>
                        <thead className={tableStyles.head}>
                          <tr>
                            <th scope="col" className="px-2 py-1">
                              {t("settings:apiReference.name")}
                            </th>
                            <th scope="col" className="px-2 py-1">
                              {t("settings:apiReference.in")}
                            </th>
                            <th scope="col" className="px-2 py-1">
                              {t("settings:apiReference.type")}
                            </th>
                            <th scope="col" className="px-2 py-1">
                              {t("settings:apiReference.required")}
                            </th>
                          </tr>
                        </thead>
                        <tbody>
                          {op.parameters.map((p) => (
                            <tr key={`${p.in}:${p.name}`} className="border-b">
                              <td className="px-2 py-1">
                                <code>{p.name}</code>
                              </td>
                              <td className="px-2 py-1">{p.in}</td>
                              <td className="px-2 py-1">{p.type}</td>
                              <td className="px-2 py-1">
                                {p.required ? t("settings:apiReference.yes") : t("settings:apiReference.no")}
                              </td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    ) : null}
                    {op.body ? (
                      <div>
                        <p className="font-medium">
                          {t("settings:apiReference.body")} (<code>{op.body.type}</code>)
                        </p>
                        <pre
                          className="mt-1 max-h-64 overflow-auto rounded-md bg-muted p-2 text-xs"
                          tabIndex={0}
                        >
                          {op.body.schema}
                        </pre>
                      </div>
                    ) : null}
                    <p>
                      {t("settings:apiReference.answers")}:{" "}
                      {op.answers.map((a) => (a.type ? `${a.status} (${a.type})` : a.status)).join(", ")}
                    </p>
                  </div>
                </details>
              </li>
            ))}
          </ul>
        </Card>
      ))}
    </div>
  );
}
