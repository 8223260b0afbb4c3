import { z } from "zod";
import { safeRedirectPath } from "../http/responses";
import type { MessageKey } from "../i18n/message";
import { NOTICE_LEVELS } from "./levels";

// No server imports here: the composer shares these schemas.

/** Never another host: a notice must not send its readers (super admins among them) to a password phishing page. */
export function isSafeLink(v: string): boolean {
  if (v === "") return true;
  return v.startsWith("/") && safeRedirectPath(v, "") === v;
}

export const LINK_INSIDE_APP: MessageKey = "validation.appPath";

export const AUDIENCE_KINDS = ["all", "roles", "teams"] as const;

export const audienceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("all") }),
  z.object({
    kind: z.literal("roles"),
    ids: z.array(z.string().uuid()).min(1, "validation.atLeastOneRole").max(50),
  }),
  z.object({
    kind: z.literal("teams"),
    ids: z.array(z.string().uuid()).min(1, "broadcast.atLeastOneTeam").max(50),
  }),
]);

export type Audience = z.infer<typeof audienceSchema>;

const fields = {
  title: z.string().trim().min(1, "validation.title").max(120),
  message: z.string().trim().min(1, "validation.message").max(2000),
  level: z.enum(NOTICE_LEVELS),
  link: z
    .string()
    .trim()
    .max(500)
    .refine(isSafeLink, LINK_INSIDE_APP)
    .transform((v) => v || null),
};

const broadcastSchema = z.object({ ...fields, audience: audienceSchema, email: z.boolean() });

export type BroadcastInput = z.infer<typeof broadcastSchema>;

const ids = z.array(z.string().uuid()).max(50).default([]);

/** Conform reads the form's constraints from this, which it cannot through a transform. */
export const broadcastFormSchema = z
  .object({
    ...fields,
    link: z.string().default("").pipe(fields.link),
    audience: z.enum(AUDIENCE_KINDS).default("all"),
    roleIds: ids,
    teamIds: ids,
    email: z.boolean().default(false),
  })
  .refine((v) => v.audience !== "roles" || (Array.isArray(v.roleIds) && v.roleIds.length > 0), {
    message: "validation.atLeastOneRole",
    path: ["audience"],
    when: () => true,
  })
  .refine((v) => v.audience !== "teams" || (Array.isArray(v.teamIds) && v.teamIds.length > 0), {
    message: "broadcast.atLeastOneTeam",
    path: ["audience"],
    when: () => true,
  });

export function toBroadcastInput(v: z.output<typeof broadcastFormSchema>): BroadcastInput {
  return {
    title: v.title,
    message: v.message,
    level: v.level,
    link: v.link,
    audience: audienceOf(v),
    email: v.email,
  };
}

export function audienceOf(v: { audience?: string; roleIds?: string[]; teamIds?: string[] }): Audience {
  if (v.audience === "roles") return { kind: "roles", ids: v.roleIds ?? [] };
  if (v.audience === "teams") return { kind: "teams", ids: v.teamIds ?? [] };
  return { kind: "all" };
}
