import { requirePermission } from "../../auth/guard.server";
import { pageTitle } from "../../components/page-title";
import { getLanguage } from "../../i18n/i18n.server";
import { emailTemplatesData, runEmailTemplatesIntent } from "../../settings/email-templates-page.server";
import type { Route } from "./+types/route";
import { TemplateEditor, useTemplateFetchers } from "./template-editor";
import { TemplateHistory } from "./template-history";
import { TemplatePicker } from "./template-picker";

export async function loader(args: Route.LoaderArgs) {
  const user = await requirePermission(args, "settings.manage");
  return emailTemplatesData(user, new URL(args.request.url), getLanguage(args.context));
}

export const action = (args: Route.ActionArgs) => runEmailTemplatesIntent(args);

export default function EmailTemplatesSettings({ loaderData }: Route.ComponentProps) {
  // Keyed by what is shown, so another email, language or version starts from its own words.
  const key = `${loaderData.type}/${loaderData.language}/${loaderData.version ?? 0}`;
  const fetchers = useTemplateFetchers(loaderData);
  return (
    <>
      <TemplatePicker data={loaderData} />
      <TemplateEditor key={key} data={loaderData} fetchers={fetchers} />
      <TemplateHistory data={loaderData} />
    </>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "settingsEmailTemplates");
