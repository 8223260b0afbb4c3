import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createDb } from "../db/connection";
import { E2E_BASE_URL, E2E_DB } from "./env";
import { axeBuilder, createUser, expect, test } from "./fixtures";

// Access requests in the browser: someone refused a page asks for the requestable role that gives it, an admin in
// another browser approves it by keyboard, and the requester hears of it live (the bell).

/** A role giving only log.read, made requestable through the roles API by a super admin. */
async function requestableRole(label: string, superAdmin: Page) {
  const db = createDb(`file:${E2E_DB}`);
  const name = `req_${randomUUID().slice(0, 8)}`;
  try {
    const id = randomUUID();
    const ts = new Date().toISOString();
    await db.insertInto("role").values({ id, name, label, created_at: ts, updated_at: ts }).execute();
    const perm = await db
      .selectFrom("permission")
      .select("id")
      .where("key", "=", "log.read")
      .executeTakeFirstOrThrow();
    await db.insertInto("role_permission").values({ role_id: id, permission_id: perm.id }).execute();
  } finally {
    await db.destroy();
  }
  const patch = (role: string, data: unknown) =>
    superAdmin.request.patch(`/api/roles/${role}`, { data, headers: { Origin: E2E_BASE_URL } });
  // Any change to roles makes the server read them again, the one inserted above too.
  expect((await patch("guest", {})).status()).toBe(200);
  expect((await patch(name, { requestable: true, maxRequestHours: 4 })).status()).toBe(200);
}

test("ask for a role, have it approved by keyboard elsewhere, hear of it live", async ({
  login,
  page,
  browser,
}) => {
  const label = `Night watch ${randomUUID().slice(0, 4)}`;
  const requester = await createUser(["user"], "Ria Requester");
  const admin = await createUser(["admin"], "Ada Approver");
  const owner = await createUser(["super_admin"], "Sam Super");
  const ownerContext = await browser.newContext();
  const ownerPage = await ownerContext.newPage();
  await login(owner, ownerPage);
  await requestableRole(label, ownerPage);
  await ownerContext.close();

  // From the refusal: the audit log needs log.read, which the requestable role gives.
  await login(requester, page, "/dashboard/logs");
  await expect(page.getByTestId("no-access")).toBeVisible();
  await page.getByRole("link", { name: `Ask for ${label}` }).click();
  await expect(page.getByRole("heading", { name: "Access requests", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Role").locator("option:checked")).toHaveText(label);
  await page.getByLabel("For how many hours").fill("2");
  await page.getByLabel("Why you need it").fill("Covering the release tonight");
  await page.getByRole("button", { name: "Send the request" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Your request for ${label} was sent` }),
  ).toBeVisible();
  await expect(page.getByText("Waiting", { exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  expect((await axeBuilder(page).analyze()).violations).toEqual([]);

  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await login(admin, adminPage, "/dashboard/access/requests");
  await expect(adminPage.getByRole("heading", { name: "Waiting for your decision" })).toBeVisible();
  const approve = adminPage.getByRole("button", { name: "Approve the request of Ria Requester" });
  await adminPage.getByLabel("Comment").first().focus();
  await adminPage.keyboard.type("Enjoy the night");
  await adminPage.keyboard.press("Tab");
  await expect(approve).toBeFocused();
  await adminPage.keyboard.press("Enter");
  await expect(adminPage.getByRole("heading", { name: "Waiting for your decision" })).toHaveCount(0);
  expect((await axeBuilder(adminPage).analyze()).violations).toEqual([]);
  await adminContext.close();

  // Live on the requester's page: the bell counts the answer without a reload.
  await expect(page.getByRole("button", { name: /Notifications, 1 unread/ })).toBeVisible();
  await page.reload();
  await expect(page.getByText("Approved", { exact: true })).toBeVisible();
});
