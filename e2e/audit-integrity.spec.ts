import { randomUUID } from "node:crypto";
import { createDb } from "../db/connection";
import { E2E_DB } from "./env";
import { createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Settings → System → Audit log integrity, by keyboard: "Verify now" runs the verification as a
// background task and the section then says what it found. A row slipped into the table behind
// the application's back makes it report a problem (other specs insert such rows too, so this
// one looks only for that kind of finding, never for "intact").

test("verify the audit log from Settings by keyboard; a row inserted outside the app is reported", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const admin = await createUser(["admin"], "Integrity Checker");
  const db = createDb(`file:${E2E_DB}`);
  try {
    await db
      .insertInto("audit_log")
      .values({ id: randomUUID(), action: "user.delete", created_at: new Date().toISOString() } as never)
      .execute();
  } finally {
    await db.destroy();
  }
  await login(admin, page, "/dashboard/settings/system");
  const section = page
    .getByRole("region", { name: "Audit log integrity" })
    .or(page.locator("section", { has: page.getByRole("heading", { name: "Audit log integrity" }) }));
  await expect(section.getByText(/Last signed checkpoint|No signed checkpoint yet/)).toBeVisible();
  const verify = section.getByRole("button", { name: "Verify now" });
  await tabTo(page, verify);
  await expect(verify).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(section.getByRole("status")).toContainText("found a problem", { timeout: 20_000 });
  await expect(section.getByRole("status")).toContainText("inserted outside the application");
  // The task centre names the task as people read it.
  await expect(
    page.getByRole("status").filter({ hasText: "Audit log verification finished." }),
  ).toBeVisible();
  expect(problems).toEqual([]);
});
