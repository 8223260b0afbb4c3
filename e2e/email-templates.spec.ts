import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";
import { receivedMail } from "./mail";

// Settings → Email templates by keyboard: a super admin words the German invitation, sees it in the
// preview, saves, sends a test to themselves, changes it again and restores the first version; an
// English template is customised beside it and reset. An admin may read a guarded template only.

test("edit, preview, send a test, restore a version, in both languages, by keyboard", async ({
  login,
  page,
}) => {
  const root = await createUser(["super_admin"], "Tess Templates");
  // The refused save below, and its preview, answer 400.
  const problems = watchConsole(page, { allowStatus: [400] });
  await login(root, page, "/dashboard/settings/email-templates?type=invite&language=de");
  await expect(page.getByRole("heading", { name: "Invitation" })).toBeVisible();
  const subject = page.getByLabel("Subject", { exact: true });
  // The German default is shown beside the field.
  await expect(page.getByText("Default: Sie wurden eingeladen")).toBeVisible();

  await tabTo(page, subject);
  await page.keyboard.type("Willkommen bei ");
  // A placeholder from the chips, inserted where the caret was.
  await tabTo(page, page.getByRole("button", { name: "Insert {{appName}} into Subject" }));
  await page.keyboard.press("Enter");
  await expect(subject).toHaveValue("Willkommen bei {{appName}}");
  await expect(page.getByTestId("preview-subject")).toHaveText(/^Subject: Willkommen bei (?!\{\{)/);
  await tabTo(page, page.getByRole("button", { name: "Save" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("Saved the words of Invitation (DE).")).toBeVisible();
  expect((await axeBuilder(page).analyze()).violations).toEqual([]);

  // A link in the words is refused on its field, and nothing is saved.
  await subject.focus();
  await page.keyboard.press("End");
  await page.keyboard.type(" auf acme-login.com");
  await tabTo(page, page.getByRole("button", { name: "Save" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("Remove “acme-login.com”", { exact: false }).first()).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("Willkommen bei {{appName}}");

  // The test goes to the editor's own address, with the saved words.
  await tabTo(page, page.getByRole("button", { name: "Send a test to me" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText(`A test was sent to ${root.email}.`)).toBeVisible();
  await expect
    .poll(async () => (await receivedMail(root.email)).map((m) => m.Subject))
    .toContainEqual(expect.stringMatching(/^Willkommen bei /));

  // A second version, then the first restored from the history.
  const field = page.getByLabel("Subject", { exact: true });
  await field.focus();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("Hallo aus {{appName}}");
  await tabTo(page, page.getByRole("button", { name: "Save" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("Version 2")).toBeVisible();
  await tabTo(page, page.getByRole("button", { name: "Restore: Version 1" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("Version 3")).toBeVisible();
  await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("Willkommen bei {{appName}}");

  // The English notification beside it, then back to its default.
  await page.goto("/dashboard/settings/email-templates?type=notification&language=en");
  await page.getByLabel("Message", { exact: true }).fill("Something changed in {{appName}}, {{userName}}.");
  await page.getByRole("button", { name: "Save" }).press("Enter");
  await expect(page.getByText("Saved the words of Notification (EN).")).toBeVisible();
  await expect(page.getByTestId("preview-text")).toContainText("Something changed in ");
  await expect(
    page.getByTestId("preview-html").locator("p", { hasText: "Something changed in " }),
  ).toBeVisible();
  await page.getByRole("button", { name: "Reset to default" }).press("Enter");
  await page.getByRole("alertdialog").getByRole("button", { name: "Reset to default" }).press("Enter");
  await expect(page.getByText("Notification (EN) uses the default words again.")).toBeVisible();
  await expect(page.getByLabel("Message", { exact: true })).toHaveValue("");
  expect(problems).toEqual([]);
});

test("an admin reads a guarded template but cannot change it; the page in German", async ({
  login,
  page,
}) => {
  const admin = await createUser(["admin"], "Ada Admin Templates");
  const problems = watchConsole(page);
  await login(admin, page, "/dashboard/settings/email-templates?type=reset-password&language=en");
  await expect(page.getByText("Only a super admin may change this email")).toBeVisible();
  await expect(page.getByRole("button", { name: "Save" })).toHaveCount(0);
  await expect(page.getByLabel("Subject", { exact: true })).toHaveAttribute("readonly", "");
  // The preview of a template one may only read.
  await expect(page.getByTestId("preview-subject")).toHaveText("Subject: Reset your password");
  expect(problems).toEqual([]);
  expect((await axeBuilder(page).analyze()).violations).toEqual([]);
  // The page speaks German to a German browser.
  await page.setExtraHTTPHeaders({ "Accept-Language": "de" });
  await page.goto("/dashboard/settings/email-templates?type=notification&language=de");
  await expect(page.getByRole("heading", { name: "E-Mail-Vorlagen" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Speichern" })).toBeVisible();
});
