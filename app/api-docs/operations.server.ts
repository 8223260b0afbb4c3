import { z } from "zod";
import { PERMISSION_KEYS } from "../access/permissions";
import { patchRoleSchema, whoQuery } from "../access/role-schemas";
import { simulateInput } from "../access/simulate.server";
import { scimGroupInput, scimPatchInput, scimUserInput } from "../directory/scim-schema";
import { testMailBody as mailBody } from "../mail/test-mail";
import { notificationsBody as notificationBody } from "../notifications/inbox-request";
import { requestSchema as taskRequest } from "../tasks/create-task.server";
import { taskListQuery as tasksQuery } from "../tasks/task-list-query";
import { grantInput, undoRequest as undoBody } from "../users/user-schemas";
import { endpointInput, endpointPatch, replay } from "../webhooks/endpoints.server";
import * as answers from "./answers";

// Every `/api/*` endpoint and the SCIM service, each with the schemas its route validates with
// (imported, never copied) and the statuses it answers (docs/http-contract.md). The description
// (document.server.ts) is generated from this; app/api-docs/openapi.test.ts fails when a route is
// missing here. Internal endpoints (the signed task webhook) are left out on purpose.

type Auth = "session" | "public" | "scim";
type Body = { schema: z.ZodType; form?: boolean };
export type Operation = {
  /** The route id in app/routes.ts, so the coverage test knows which routes are described. */
  route: string;
  method: "get" | "post" | "patch" | "put" | "delete";
  /** OpenAPI style: `/api/tasks/{id}`. */
  path: string;
  summary: string;
  tag: string;
  auth: Auth;
  query?: z.ZodObject;
  body?: Body;
  /** Status → the body schema (undefined: no body, or one that is not JSON). */
  answers: Record<number, z.ZodType | "none" | "csv" | "stream" | "html">;
};

const uuid = z.string().uuid();
const searchQuery = z.object({ q: z.string().max(100).optional() });
const explainQuery = z.object({
  user: uuid,
  permission: z.enum(PERMISSION_KEYS as [string, ...string[]]),
  target: uuid.optional(),
});

/** What every signed-in endpoint may also answer. */
const signedIn = { 401: answers.refusalBody };
const refused = answers.refusalBody;

export const OPERATIONS: Operation[] = [
  {
    route: "routes/api.ping",
    method: "get",
    path: "/api/ping",
    summary: "Is the server up",
    tag: "Service",
    auth: "public",
    answers: { 200: answers.ok },
  },
  {
    route: "routes/api.tasks",
    method: "get",
    path: "/api/tasks",
    summary: "Your tasks, newest first",
    tag: "Tasks",
    auth: "session",
    query: tasksQuery,
    answers: { 200: answers.taskList, 400: refused, ...signedIn },
  },
  {
    route: "routes/api.tasks",
    method: "post",
    path: "/api/tasks",
    summary: "Start a task (answers 202 before any work runs)",
    tag: "Tasks",
    auth: "session",
    body: { schema: taskRequest },
    answers: {
      202: answers.taskAccepted,
      400: refused,
      403: refused,
      413: refused,
      429: refused,
      ...signedIn,
    },
  },
  {
    route: "routes/api.tasks.$id",
    method: "get",
    path: "/api/tasks/{id}",
    summary: "One of your tasks",
    tag: "Tasks",
    auth: "session",
    answers: { 200: answers.taskView, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.tasks.$id.download",
    method: "get",
    path: "/api/tasks/{id}/download",
    summary: "The file a task produced",
    tag: "Tasks",
    auth: "session",
    answers: { 200: "csv", 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.events",
    method: "get",
    path: "/api/events",
    summary: "Server-sent events for you (task-completed, notifications)",
    tag: "Events",
    auth: "session",
    answers: { 200: "stream", ...signedIn },
  },
  {
    route: "routes/api.notifications",
    method: "get",
    path: "/api/notifications",
    summary: "Your notifications",
    tag: "Notifications",
    auth: "session",
    answers: { 200: answers.anyObject, ...signedIn },
  },
  {
    route: "routes/api.notifications",
    method: "post",
    path: "/api/notifications",
    summary: "Mark one or all read",
    tag: "Notifications",
    auth: "session",
    body: { schema: notificationBody, form: true },
    answers: { 200: answers.ok, 400: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.search",
    method: "get",
    path: "/api/search",
    summary: "People and teams for the command palette, within your reach",
    tag: "Search",
    auth: "session",
    query: searchQuery,
    answers: { 200: answers.anyObject, ...signedIn },
  },
  {
    route: "routes/api.teams.$id.candidates",
    method: "get",
    path: "/api/teams/{id}/candidates",
    summary: "People who could join a team",
    tag: "Teams",
    auth: "session",
    query: searchQuery,
    answers: { 200: answers.anyObject, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.undo",
    method: "post",
    path: "/api/undo",
    summary: "Undo an act from its toast's token",
    tag: "Users",
    auth: "session",
    body: { schema: undoBody, form: true },
    answers: { 200: answers.anyObject, 400: refused, 403: refused, 409: refused, 410: refused, ...signedIn },
  },
  {
    route: "routes/api.views",
    method: "get",
    path: "/api/views",
    summary: "Your saved views",
    tag: "Views",
    auth: "session",
    answers: { 200: answers.anyObject, ...signedIn },
  },
  {
    route: "routes/api.mail",
    method: "post",
    path: "/api/mail",
    summary: "Send a test email",
    tag: "Settings",
    auth: "session",
    body: { schema: mailBody },
    answers: { 200: answers.ok, 400: refused, 403: refused, 502: refused, ...signedIn },
  },
  {
    route: "routes/api.roles",
    method: "get",
    path: "/api/roles",
    summary: "The roles, in the role order",
    tag: "Access",
    auth: "session",
    answers: { 200: z.object({ roles: z.array(answers.roleView) }), 403: refused, ...signedIn },
  },
  {
    route: "routes/api.roles.$name",
    method: "patch",
    path: "/api/roles/{name}",
    summary: "Change a role's label, description or permissions",
    tag: "Access",
    auth: "session",
    body: { schema: patchRoleSchema },
    answers: { 200: answers.roleView, 400: refused, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.users.$id.roles",
    method: "get",
    path: "/api/users/{id}/roles",
    summary: "A person's grants",
    tag: "Access",
    auth: "session",
    answers: {
      200: z.object({ grants: z.array(answers.grantView) }),
      403: refused,
      404: refused,
      ...signedIn,
    },
  },
  {
    route: "routes/api.users.$id.roles",
    method: "post",
    path: "/api/users/{id}/roles",
    summary: "Grant a role, over everyone or within a team",
    tag: "Access",
    auth: "session",
    body: { schema: grantInput },
    answers: { 201: answers.grantView, 400: refused, 403: refused, 404: refused, 409: refused, ...signedIn },
  },
  {
    route: "routes/api.users.$id.roles.$grantId",
    method: "delete",
    path: "/api/users/{id}/roles/{grantId}",
    summary: "Revoke a grant",
    tag: "Access",
    auth: "session",
    answers: { 204: "none", 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.access.explain",
    method: "get",
    path: "/api/access/explain",
    summary: "Why a person holds a permission, or what blocks it",
    tag: "Access",
    auth: "session",
    query: explainQuery,
    answers: { 200: answers.explanation, 400: refused, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.access.who",
    method: "get",
    path: "/api/access/who",
    summary: "Everyone who holds a permission, and through what (format=csv for a file)",
    tag: "Access",
    auth: "session",
    query: whoQuery,
    answers: { 200: answers.whoAnswer, 400: refused, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.access.simulate",
    method: "post",
    path: "/api/access/simulate",
    summary: "Who would gain and lose what, writing nothing",
    tag: "Access",
    auth: "session",
    body: { schema: simulateInput },
    answers: { 200: answers.impact, 400: refused, 403: refused, 413: refused, ...signedIn },
  },
  {
    route: "routes/api.access.sync",
    method: "post",
    path: "/api/access/sync",
    summary: "Write the code's permissions and roles to the database again (super admin)",
    tag: "Access",
    auth: "session",
    answers: { 200: answers.anyObject, 403: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints",
    method: "get",
    path: "/api/webhook-endpoints",
    summary: "Outgoing webhook endpoints",
    tag: "Webhooks",
    auth: "session",
    answers: { 200: z.object({ endpoints: z.array(answers.webhookEndpoint) }), 403: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints",
    method: "post",
    path: "/api/webhook-endpoints",
    summary: "Add an endpoint; its signing secret is answered once",
    tag: "Webhooks",
    auth: "session",
    body: { schema: endpointInput },
    answers: {
      201: answers.webhookEndpoint.extend({ secret: z.string() }),
      400: refused,
      403: refused,
      ...signedIn,
    },
  },
  {
    route: "routes/api.webhook-endpoints.$id",
    method: "get",
    path: "/api/webhook-endpoints/{id}",
    summary: "One endpoint",
    tag: "Webhooks",
    auth: "session",
    answers: { 200: answers.webhookEndpoint, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints.$id",
    method: "patch",
    path: "/api/webhook-endpoints/{id}",
    summary: "Change an endpoint",
    tag: "Webhooks",
    auth: "session",
    body: { schema: endpointPatch },
    answers: { 200: answers.webhookEndpoint, 400: refused, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints.$id",
    method: "delete",
    path: "/api/webhook-endpoints/{id}",
    summary: "Remove an endpoint",
    tag: "Webhooks",
    auth: "session",
    answers: { 204: "none", 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints.$id.deliveries",
    method: "get",
    path: "/api/webhook-endpoints/{id}/deliveries",
    summary: "An endpoint's deliveries",
    tag: "Webhooks",
    auth: "session",
    answers: { 200: answers.anyObject, 400: refused, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints.$id.deliveries",
    method: "post",
    path: "/api/webhook-endpoints/{id}/deliveries",
    summary: "Send again everything since a time",
    tag: "Webhooks",
    auth: "session",
    body: { schema: replay },
    answers: {
      200: z.object({ replayed: z.number() }),
      400: refused,
      403: refused,
      404: refused,
      ...signedIn,
    },
  },
  {
    route: "routes/api.webhook-endpoints.$id.rotate-secret",
    method: "post",
    path: "/api/webhook-endpoints/{id}/rotate-secret",
    summary: "A new signing secret, answered once",
    tag: "Webhooks",
    auth: "session",
    answers: { 200: answers.anyObject, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-endpoints.$id.send-test",
    method: "post",
    path: "/api/webhook-endpoints/{id}/send-test",
    summary: "Send a test event",
    tag: "Webhooks",
    auth: "session",
    answers: { 202: z.object({ messageId: z.string() }), 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.webhook-deliveries.$id.retry",
    method: "post",
    path: "/api/webhook-deliveries/{id}/retry",
    summary: "Send one delivery again",
    tag: "Webhooks",
    auth: "session",
    answers: { 202: answers.ok, 403: refused, 404: refused, ...signedIn },
  },
  {
    route: "routes/api.auth.verify-email",
    method: "get",
    path: "/api/auth/verify-email",
    summary: "Follow an email verification link",
    tag: "Accounts",
    auth: "public",
    query: z.object({ token: z.string() }),
    answers: { 302: "none", 200: "html", 400: "html" },
  },
  {
    route: "routes/scim.v2.$",
    method: "get",
    path: "/scim/v2/Users",
    summary: "SCIM: list or filter users",
    tag: "SCIM",
    auth: "scim",
    query: z.object({
      filter: z.string().optional(),
      startIndex: z.coerce.number().optional(),
      count: z.coerce.number().optional(),
    }),
    answers: { 200: answers.anyObject, 400: answers.anyObject, 401: answers.anyObject },
  },
  {
    route: "routes/scim.v2.$",
    method: "post",
    path: "/scim/v2/Users",
    summary: "SCIM: provision a user",
    tag: "SCIM",
    auth: "scim",
    body: { schema: scimUserInput },
    answers: {
      201: answers.anyObject,
      400: answers.anyObject,
      401: answers.anyObject,
      409: answers.anyObject,
    },
  },
  {
    route: "routes/scim.v2.$",
    method: "get",
    path: "/scim/v2/Users/{id}",
    summary: "SCIM: one user",
    tag: "SCIM",
    auth: "scim",
    answers: { 200: answers.anyObject, 401: answers.anyObject, 404: answers.anyObject },
  },
  {
    route: "routes/scim.v2.$",
    method: "put",
    path: "/scim/v2/Users/{id}",
    summary: "SCIM: replace a user",
    tag: "SCIM",
    auth: "scim",
    body: { schema: scimUserInput },
    answers: {
      200: answers.anyObject,
      400: answers.anyObject,
      401: answers.anyObject,
      404: answers.anyObject,
    },
  },
  {
    route: "routes/scim.v2.$",
    method: "patch",
    path: "/scim/v2/Users/{id}",
    summary: "SCIM: change a user",
    tag: "SCIM",
    auth: "scim",
    body: { schema: scimPatchInput },
    answers: {
      200: answers.anyObject,
      400: answers.anyObject,
      401: answers.anyObject,
      404: answers.anyObject,
    },
  },
  {
    route: "routes/scim.v2.$",
    method: "delete",
    path: "/scim/v2/Users/{id}",
    summary: "SCIM: deprovision a user",
    tag: "SCIM",
    auth: "scim",
    answers: { 204: "none", 401: answers.anyObject, 404: answers.anyObject },
  },
  {
    route: "routes/scim.v2.$",
    method: "get",
    path: "/scim/v2/Groups",
    summary: "SCIM: list groups (teams)",
    tag: "SCIM",
    auth: "scim",
    answers: { 200: answers.anyObject, 401: answers.anyObject },
  },
  {
    route: "routes/scim.v2.$",
    method: "post",
    path: "/scim/v2/Groups",
    summary: "SCIM: create a group",
    tag: "SCIM",
    auth: "scim",
    body: { schema: scimGroupInput },
    answers: {
      201: answers.anyObject,
      400: answers.anyObject,
      401: answers.anyObject,
      409: answers.anyObject,
    },
  },
  {
    route: "routes/scim.v2.$",
    method: "get",
    path: "/scim/v2/ServiceProviderConfig",
    summary: "SCIM: what this service supports",
    tag: "SCIM",
    auth: "scim",
    answers: { 200: answers.anyObject, 401: answers.anyObject },
  },
];

/** Routes under /api that are not part of the description, and why. */
export const UNDESCRIBED: Record<string, string> = {
  "routes/api.webhooks.tasks": "internal: the task runner's signed completion webhook",
  "routes/api.not-found": "every unknown /api path: answers 404 as described for each",
  "routes/api.openapi": "this description itself",
};
