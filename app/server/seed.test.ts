import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../db/connection";
import { migrateToLatest } from "../../db/migrate";
import { onPostgres } from "../../test/postgres-schema";
import { SEED_MENU_ITEMS } from "../access/menu";
import { PERMISSIONS } from "../access/permissions";
import { db } from "../db.server";
import { DEV_SUPER_ADMIN_EMAIL, SeedConfigError, seed } from "./seed.server";

// The project's tsx itself, not through npx (which costs a second of its own each time).
const TSX = resolve("node_modules/.bin/tsx");

const TABLES = ["permission", "role", "role_permission", "menu_item", "user", "user_role"] as const;

async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = await db().selectFrom(t).selectAll().execute();
  for (const rows of Object.values(out))
    rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return out;
}

const env = {
  NODE_ENV: "test",
  SUPER_ADMIN_EMAIL: "boss@example.test",
  SUPER_ADMIN_PASSWORD: "pw-123456789",
};

describe("seed", () => {
  beforeAll(async () => {
    await migrateToLatest(db());
  });

  it("inserts the seed rows exactly", async () => {
    const report = await seed(db(), env);
    expect(report.inserted.permissions).toHaveLength(10);
    const perms = await db().selectFrom("permission").select(["key", "label"]).execute();
    expect(new Map(perms.map((p) => [p.key, p.label]))).toEqual(
      new Map(PERMISSIONS.map((p) => [p.key, p.label])),
    );

    const roles = await db()
      .selectFrom("role")
      .select(["name", "label", "all_permissions"])
      .orderBy("name")
      .execute();
    expect(roles).toEqual([
      { name: "admin", label: "Administrator", all_permissions: 0 },
      { name: "guest", label: "Guest", all_permissions: 0 },
      { name: "manager", label: "Manager", all_permissions: 0 },
      { name: "super_admin", label: "Super Admin", all_permissions: 1 },
      { name: "user", label: "User", all_permissions: 0 },
    ]);
    const links = await db()
      .selectFrom("role_permission")
      .innerJoin("role", "role.id", "role_permission.role_id")
      .innerJoin("permission", "permission.id", "role_permission.permission_id")
      .select(["role.name", "permission.key"])
      .execute();
    const byRole = (name: string) =>
      links
        .filter((l) => l.name === name)
        .map((l) => l.key)
        .sort();
    expect(byRole("admin")).toEqual(PERMISSIONS.map((p) => p.key).sort());
    expect(byRole("manager")).toEqual(["dashboard.access", "team.read", "team.write", "user.read"]);
    expect(byRole("user")).toEqual(["dashboard.access"]);
    expect(byRole("guest")).toEqual([]);
    expect(byRole("super_admin")).toEqual([]);

    const menu = await db()
      .selectFrom("menu_item")
      .select(["position", "title", "url", "icon", "required_permission"])
      .orderBy("position")
      .execute();
    expect(menu).toEqual(
      SEED_MENU_ITEMS.map((m) => ({
        position: m.order,
        title: m.title,
        url: m.url,
        icon: m.icon,
        required_permission: m.requiredPermission,
      })),
    );
    expect(menu.map((m) => m.title)).toEqual([
      "Dashboard",
      "Users",
      "Teams",
      "Access Control",
      "Audit Logs",
      "Settings",
      "Broadcast",
    ]);

    const admin = await db()
      .selectFrom("user")
      .innerJoin("user_role", "user_role.user_id", "user.id")
      .innerJoin("role", "role.id", "user_role.role_id")
      .select(["user.name", "user.email", "user.email_verified", "user.password_hash", "role.name as role"])
      .executeTakeFirstOrThrow();
    expect(admin).toMatchObject({
      name: "Super Admin",
      email: "boss@example.test",
      email_verified: 1,
      role: "super_admin",
    });
    expect(admin.password_hash).toMatch(/^\$argon2id\$/);
  });

  it("changes nothing on a second run", async () => {
    const before = await snapshot();
    const report = await seed(db(), { ...env, SUPER_ADMIN_PASSWORD: "another-password" });
    expect(report.inserted).toEqual({ permissions: [], roles: [], menuItems: [], superAdmin: null });
    expect(await snapshot()).toEqual(before);
  });

  it("keeps what an admin edited", async () => {
    await db().updateTable("permission").set({ label: "Renamed" }).where("key", "=", "user.read").execute();
    await db().updateTable("role").set({ label: "Boss" }).where("name", "=", "manager").execute();
    await db()
      .updateTable("menu_item")
      .set({ title: "People" })
      .where("url", "=", "/dashboard/users")
      .execute();
    await db()
      .updateTable("user")
      .set({ name: "Renamed Admin" })
      .where("email", "=", "boss@example.test")
      .execute();
    const manager = await db()
      .selectFrom("role")
      .select("id")
      .where("name", "=", "manager")
      .executeTakeFirstOrThrow();
    await db().deleteFrom("role_permission").where("role_id", "=", manager.id).execute();

    await seed(db(), env);

    expect(
      (await db().selectFrom("permission").select("label").where("key", "=", "user.read").executeTakeFirst())
        ?.label,
    ).toBe("Renamed");
    expect(
      (await db().selectFrom("role").select("label").where("name", "=", "manager").executeTakeFirst())?.label,
    ).toBe("Boss");
    expect(
      (
        await db()
          .selectFrom("menu_item")
          .select("title")
          .where("url", "=", "/dashboard/users")
          .executeTakeFirst()
      )?.title,
    ).toBe("People");
    expect(
      (
        await db()
          .selectFrom("user")
          .select("name")
          .where("email", "=", "boss@example.test")
          .executeTakeFirst()
      )?.name,
    ).toBe("Renamed Admin");
    expect(
      await db().selectFrom("role_permission").selectAll().where("role_id", "=", manager.id).execute(),
    ).toEqual([]);
  });
});

describe("seed configuration", () => {
  it("refuses an invalid SUPER_ADMIN_EMAIL or a weak SUPER_ADMIN_PASSWORD with a clear message; writes nothing", async () => {
    await migrateToLatest(db());
    const before = await snapshot();
    const bad = [
      {
        env: { ...env, SUPER_ADMIN_EMAIL: "not-an-email", NODE_ENV: "development" },
        name: /SUPER_ADMIN_EMAIL/,
      },
      {
        env: { ...env, SUPER_ADMIN_EMAIL: "fresh@example.test", SUPER_ADMIN_PASSWORD: "111111111111" },
        name: /SUPER_ADMIN_PASSWORD/,
      },
      {
        env: { ...env, SUPER_ADMIN_EMAIL: "fresh@example.test", SUPER_ADMIN_PASSWORD: "short" },
        name: /SUPER_ADMIN_PASSWORD/,
      },
    ];
    for (const { env: e, name } of bad) {
      const attempt = seed(db(), e);
      await expect(attempt).rejects.toThrow(SeedConfigError);
      await expect(seed(db(), e)).rejects.toThrow(name);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses production without SUPER_ADMIN_PASSWORD and writes nothing", async () => {
    const file = join(tmpdir(), `seed-prod-${randomUUID()}.db`);
    const other = createDb(`file:${file}`);
    try {
      await migrateToLatest(other);
      await expect(seed(other, { NODE_ENV: "production" })).rejects.toThrow(SeedConfigError);
      await expect(seed(other, { NODE_ENV: "production" })).rejects.toThrow(/SUPER_ADMIN_PASSWORD/);
      for (const t of TABLES) expect(await other.selectFrom(t).selectAll().execute()).toEqual([]);
    } finally {
      await other.destroy();
      rmSync(file, { force: true });
    }
  });

  it("generates a password in development and defaults the email", async () => {
    const file = join(tmpdir(), `seed-dev-${randomUUID()}.db`);
    const other = createDb(`file:${file}`);
    try {
      await migrateToLatest(other);
      const report = await seed(other, { NODE_ENV: "development" });
      expect(report.inserted.superAdmin).toBe(DEV_SUPER_ADMIN_EMAIL);
      expect(report.generatedPassword).toMatch(/^[\w-]{20,}$/);
      const again = await seed(other, { NODE_ENV: "development" });
      expect(again.generatedPassword).toBeUndefined();
    } finally {
      await other.destroy();
      rmSync(file, { force: true });
    }
  });

  // On SQLite files of its own, whatever the pass: PostgreSQL's would repeat SQLite's two tsx processes.
  it.skipIf(onPostgres)(
    "runs as `tsx scripts/seed.ts`, and fails with a clear message in production",
    () => {
      const file = join(tmpdir(), `seed-cli-${randomUUID()}.db`);
      const base = { ...process.env, DATABASE_URL: `file:${file}`, SUPER_ADMIN_EMAIL: "cli@example.test" };
      try {
        const out = execFileSync(TSX, ["scripts/seed.ts"], {
          env: { ...base, NODE_ENV: "development", SUPER_ADMIN_PASSWORD: "cli-password-1" },
          encoding: "utf8",
        });
        expect(out).toContain("permissions: inserted 10");
        expect(out).toContain("super admin: created cli@example.test");
        let failed: { status: number; stderr: string } | undefined;
        try {
          execFileSync(TSX, ["scripts/seed.ts"], {
            env: {
              ...base,
              DATABASE_URL: `file:${file}-prod`,
              NODE_ENV: "production",
              SUPER_ADMIN_PASSWORD: "",
            },
            encoding: "utf8",
            stdio: "pipe",
          });
        } catch (error) {
          failed = error as { status: number; stderr: string };
        }
        expect(failed?.status).toBe(1);
        expect(failed?.stderr).toContain("SUPER_ADMIN_PASSWORD");
      } finally {
        for (const f of [file, `${file}-prod`])
          for (const s of ["", "-wal", "-shm"]) rmSync(f + s, { force: true });
      }
    },
    60_000,
  );
});
