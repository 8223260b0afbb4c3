import { can } from "../../access/check";
import { assignableRoles } from "../../access/rules.server";
import { requirePermission } from "../../auth/guard.server";
import { handleIntents } from "../../auth/intents.server";
import { pageTitle } from "../../components/page-title";
import {
  createDirectory,
  deleteDirectory,
  listDirectories,
  revokeDirectoryToken,
  rotateDirectoryToken,
  updateDirectory,
} from "../../directory/directories.server";
import { directoryIdSchema, directorySchema, updateDirectorySchema } from "../../directory/directory-schemas";
import { SCIM_ROOT } from "../../directory/scim-paths";
import { baseUrl } from "../../env.server";
import { passRetryAfter } from "../../http/responses";
import { getT } from "../../i18n/i18n.server";
import { useTranslation } from "../../i18n/use-translation";
import { done } from "../../settings/answers.server";
import { SettingsSubpage } from "../dashboard.settings/settings-subpage";
import type { Route } from "./+types/route";
import { DirectorySection } from "./directory-section";

// Provisioning directories (SCIM): settings.manage, and user.write and user.update because a
// directory creates, changes and disables accounts (docs/decisions/033-scim-directories.md).

async function requireDirectoryAdmin(args: Route.LoaderArgs | Route.ActionArgs) {
  const user = await requirePermission(args, "settings.manage");
  for (const permission of ["user.write", "user.update"] as const)
    if (!can(user, permission)) await requirePermission(args, permission);
  return user;
}

export async function loader(args: Route.LoaderArgs) {
  const user = await requireDirectoryAdmin(args);
  const [directories, roles] = await Promise.all([listDirectories(), assignableRoles(user)]);
  return {
    directories,
    // A directory never hands out super admin, and nobody configures one beyond what they may grant.
    roles: roles.filter((r) => !r.all).map((r) => ({ id: r.id, name: r.name, label: r.label })),
    scimUrl: `${baseUrl()}${SCIM_ROOT}`,
  };
}

export const headers = passRetryAfter;

export async function action(args: Route.ActionArgs) {
  await requireDirectoryAdmin(args);
  const t = getT(args.context);
  return handleIntents(args, {
    "create-directory": {
      schema: directorySchema,
      run: async ({ actor, input }) => {
        const { token } = await createDirectory(actor, input, args);
        return done("create-directory", t("settings:directory.added", { name: input.name }), { token });
      },
    },
    "update-directory": {
      schema: updateDirectorySchema,
      run: async ({ actor, input }) => {
        const { id, ...fields } = input;
        await updateDirectory(actor, id, fields, args);
        return done("update-directory", t("settings:directory.saved", { name: input.name }));
      },
    },
    "rotate-directory-token": {
      schema: directoryIdSchema,
      run: async ({ actor, input }) => {
        const token = await rotateDirectoryToken(actor, input.id, args);
        return done("rotate-directory-token", t("settings:directory.rotated"), { token });
      },
    },
    "revoke-directory-token": {
      schema: directoryIdSchema,
      run: async ({ actor, input }) => {
        await revokeDirectoryToken(actor, input.id, args);
        return done("revoke-directory-token", t("settings:directory.revoked"));
      },
    },
    "delete-directory": {
      schema: directoryIdSchema,
      run: async ({ actor, input }) => {
        await deleteDirectory(actor, input.id, args);
        return done("delete-directory", t("settings:directory.removed"));
      },
    },
  });
}

export default function DirectorySettings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <SettingsSubpage title={t("settings:directory.title")}>
      <DirectorySection {...loaderData} />
    </SettingsSubpage>
  );
}

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, "directory");
