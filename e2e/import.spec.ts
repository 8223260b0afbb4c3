import { randomUUID } from "node:crypto";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";
import { linkFromMail } from "./mail";

// Users → Import by keyboard: a file checked row by row (each refusal in words), then imported as
// a background task whose progress and result appear on the page, with invitations sent and the
// per-row result downloadable.

test("import people from a CSV by keyboard: preview, run with live progress, invitations, result file", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  const admin = await createUser(["admin"], "Import Keeper");
  await login(admin, page, "/dashboard/users");
  await tabTo(page, page.getByRole("link", { name: "Import", exact: true }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Import users" })).toBeVisible();

  const run = randomUUID().slice(0, 8);
  const csv = [
    "name,email,roles,teams",
    `Grace Import,grace-${run}@example.com,manager,`,
    `Alan Import,alan-${run}@example.com,,`,
    `Nobody,not-an-address,,`,
  ].join("\n");
  const file = page.getByLabel("CSV file");
  await tabTo(page, file);
  await file.setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Send each new person an invitation to choose a password")).toBeFocused();
  await page.keyboard.press("Space");
  await tabTo(page, page.getByRole("button", { name: "Check the file" }));
  await page.keyboard.press("Enter");

  const summary = page.getByTestId("import-summary");
  await expect(summary).toContainText("2 to create");
  await expect(summary).toContainText("1 refused");
  await expect(page.getByRole("row").filter({ hasText: "not-an-address" })).toContainText(
    '"not-an-address" is not an email address.',
  );
  const scan = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(scan.violations.map((v) => v.id)).toEqual([]);

  // Another file: the preview of the first one goes, and nothing can be imported until it is checked.
  await file.setInputFiles({
    name: "other.csv",
    mimeType: "text/csv",
    buffer: Buffer.from("email\nz@example.com\n"),
  });
  await expect(summary).toBeHidden();
  await expect(page.getByRole("button", { name: /^Import \d/ })).toBeHidden();
  await file.setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Check the file" }).click();
  await expect(summary).toContainText("2 to create");

  await tabTo(page, page.getByRole("button", { name: "Import 2 rows" }));
  await page.keyboard.press("Enter");
  const task = page.getByTestId("import-task");
  await expect(task).toContainText("2 created · 0 updated · 0 skipped · 1 refused", { timeout: 30_000 });
  await expect(task.getByRole("link", { name: /Download/ })).toHaveAttribute(
    "href",
    /\/api\/tasks\/.+\/download$/,
  );

  const link = await linkFromMail(`grace-${run}@example.com`, "invite", "/reset-password?token=");
  expect(link).toContain("/reset-password?token=");
  await page.goto(`/dashboard/users?q=${run}`);
  await expect(page.getByRole("link", { name: "Grace Import" })).toBeVisible();
  expect(problems).toEqual([]);
});
