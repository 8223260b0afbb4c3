import { randomUUID } from "node:crypto";
import { axeBuilder, createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Settings → Directory by keyboard: connect a directory (its token shown once), let it provision
// someone over SCIM with that token, and find the account read-only in the admin UI, saying which
// directory owns it; then the directory deprovisions them.

test("connect a directory by keyboard, provision with its token, see the account read-only", async ({
  login,
  page,
  request,
}) => {
  const problems = watchConsole(page);
  const admin = await createUser(["admin"], "Directory Keeper");
  await login(admin, page, "/dashboard/settings/system");
  await page
    .getByRole("navigation", { name: "Settings pages" })
    .getByRole("link", { name: "Directory provisioning" })
    .click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/directory$/);
  await expect(page.getByRole("heading", { level: 2, name: "Directory provisioning (SCIM)" })).toBeVisible();
  await expect(page.getByText("No directory is connected yet.")).toBeVisible();

  const suffix = randomUUID().slice(0, 8);
  const domain = `dir-${suffix}.example`;
  const name = `Okta ${suffix}`;
  const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Connect directory" }) });
  await tabTo(page, form.getByLabel("Name"));
  await page.keyboard.type(name);
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("Email domains it may provision")).toBeFocused();
  await page.keyboard.type(domain);
  await tabTo(page, form.getByLabel("Group 1", { exact: true }));
  await page.keyboard.type("Engineering");
  await page.keyboard.press("Tab");
  await expect(form.getByLabel("Role of group 1")).toBeFocused();
  await form.getByLabel("Role of group 1").selectOption({ label: "Manager" });
  await tabTo(page, form.getByRole("button", { name: "Connect directory" }));
  await page.keyboard.press("Enter");
  const reveal = page.getByRole("dialog", { name: "The directory's SCIM token" });
  const token = await reveal.getByTestId("directory-token").inputValue();
  expect(token).toMatch(/^scim_/);
  await tabTo(page, reveal.getByRole("button", { name: "I have saved it" }));
  await page.keyboard.press("Enter");
  await expect(reveal).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `${name} was connected.` })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/settings\/directory$/);

  const scim = (method: string, path: string, data?: unknown) =>
    request.fetch(`/scim/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" },
      data: data === undefined ? undefined : JSON.stringify(data),
    });
  const created = await scim("POST", "/Users", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName: `ada@${domain}`,
    name: { givenName: "Ada", familyName: "Lovelace" },
    active: true,
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).id as string;

  await page.reload();
  await expect(page.getByText("Manages 1 account")).toBeVisible();
  const scan = await axeBuilder(page).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(scan.violations.map((v) => v.id)).toEqual([]);

  await page.goto(`/dashboard/users/${id}`);
  await expect(page.getByTestId("managed-by")).toHaveText(
    `${name} manages this account: change its name, email, status and roles there.`,
  );
  await expect(page.getByLabel("Name", { exact: true })).toBeDisabled();

  expect(
    (
      await scim("PATCH", `/Users/${id}`, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", value: { active: false } }],
      })
    ).status(),
  ).toBe(200);
  await page.reload();
  await expect(page.getByTestId("user-status")).toHaveText("Disabled");
  expect(problems).toEqual([]);
});
