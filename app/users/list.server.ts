import { z } from "zod";
import { searchText } from "../../db/like";
import { hasNoNul } from "../../db/nul";
import { compareRoles } from "../access/role-order";
import { db } from "../db.server";
import { PAGE_SIZES, USER_SORTS } from "./list-options";

// The list state lives in the URL; this parses it, falling back to defaults on anything odd.
export const userListQuery = z.object({
  q: z.string().trim().max(200).refine(hasNoNul).catch(""),
  role: z.string().max(100).refine(hasNoNul).catch(""),
  status: z.enum(["", "active", "disabled"]).catch(""),
  verified: z.enum(["", "yes", "no"]).catch(""),
  sort: z.enum(USER_SORTS).catch("created_at"),
  dir: z.enum(["asc", "desc"]).catch("desc"),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  size: z.coerce
    .number()
    .refine((n): n is (typeof PAGE_SIZES)[number] => (PAGE_SIZES as readonly number[]).includes(n))
    .catch(25),
});

export type UserListQuery = z.infer<typeof userListQuery>;

export function parseUserListQuery(url: URL): UserListQuery {
  return userListQuery.parse(Object.fromEntries(url.searchParams));
}

export type UserRow = {
  id: string;
  name: string;
  email: string;
  email_verified: number;
  status: "active" | "disabled";
  last_login_at: string | null;
  created_at: string;
  roles: { name: string; label: string }[];
};

/** One page of users matching the filters, with their roles, and the total count. */
export async function listUsers(q: UserListQuery): Promise<{ rows: UserRow[]; total: number }> {
  let base = db().selectFrom("user");
  if (q.q) {
    const text = q.q;
    base = base.where(searchText(db(), "user", ["name", "email"], text));
  }
  if (q.status) base = base.where("user.status", "=", q.status);
  if (q.verified) base = base.where("user.email_verified", "=", q.verified === "yes" ? 1 : 0);
  if (q.role) {
    // A join from the role's link rows lets the planner start from user_role's role index.
    const role = await db().selectFrom("role").select("id").where("name", "=", q.role).executeTakeFirst();
    if (!role) return { rows: [], total: 0 };
    base = base.innerJoin("user_role as filter_role", (join) =>
      join.onRef("filter_role.user_id", "=", "user.id").on("filter_role.role_id", "=", role.id),
    );
  }

  const [{ total }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
    base
      .select([
        "user.id",
        "user.name",
        "user.email",
        "user.email_verified",
        "user.status",
        "user.last_login_at",
        "user.created_at",
      ])
      .orderBy(`user.${q.sort}`, q.dir)
      .orderBy("user.id")
      .limit(q.size)
      .offset((q.page - 1) * q.size)
      .execute(),
  ]);

  const ids = rows.map((r) => r.id);
  const links = ids.length
    ? await db()
        .selectFrom("user_role")
        .innerJoin("role", "role.id", "user_role.role_id")
        .select(["user_role.user_id", "role.name", "role.label"])
        .where("user_role.user_id", "in", ids)
        .execute()
    : [];
  return {
    total: Number(total),
    rows: rows.map((r) => ({
      ...r,
      roles: links
        .filter((l) => l.user_id === r.id)
        .map(({ name, label }) => ({ name, label }))
        .sort(compareRoles),
    })),
  };
}
