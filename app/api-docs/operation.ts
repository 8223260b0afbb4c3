import type { z } from "zod";

type Auth = "session" | "public" | "scim";
type Body = { schema: z.ZodType; form?: boolean };

/** One method on one path, as the description shows it and the API tests check it. */
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
