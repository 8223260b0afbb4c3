import { createDb } from "../db/connection";
import { E2E_ADMIN, E2E_DB } from "./env";
import {
  axeBothThemes,
  chooseTheme,
  createUser,
  eventStreamOpened,
  expect,
  signIn,
  test,
  watchConsole,
} from "./fixtures";

const PHONE = { width: 390, height: 844 };

/** Everyone a broadcast reaches: enabled accounts with a verified address (docs/rules.md, Broadcast). */
/** Everyone, and those a broadcast reaches (active, verified): the confirmation names both when they differ. */
async function everyone() {
  const db = createDb(`file:${E2E_DB}`);
  try {
    const row = await db
      .selectFrom("user")
      .select((eb) => [
        eb.fn.countAll<number>().as("n"),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(eb.and([eb("status", "=", "active"), eb("email_verified", "=", 1)]))
              .then(1)
              .else(0)
              .end(),
          )
          .as("reached"),
      ])
      .executeTakeFirstOrThrow();
    const [reached, members] = [Number(row.reached), Number(row.n)].map((n) => n.toLocaleString("en-US"));
    return reached === members
      ? `${reached} ${reached === "1" ? "person" : "people"}`
      : `${reached} of ${members} people`;
  } finally {
    await db.destroy();
  }
}

test("a broadcast to a role reaches its holders live, and nobody else", async ({ login, page, browser }) => {
  const manager = await createUser(["manager"], "Live Manager");
  const plain = await createUser(["user"], "Plain User");

  const managerContext = await browser.newContext();
  const managerPage = await managerContext.newPage();
  const managerStream = eventStreamOpened(managerPage);
  await login(manager, managerPage);
  const userContext = await browser.newContext();
  const userPage = await userContext.newPage();
  const userStream = eventStreamOpened(userPage);
  await login(plain, userPage);
  // Both are connected to the event stream before the notice goes out.
  await expect(managerPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await expect(userPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await managerStream;
  await userStream;

  await login(E2E_ADMIN);
  await page.getByTestId("sidebar").getByRole("link", { name: "Broadcast" }).click();
  await page.getByLabel("Title").fill("Release tonight");
  await page.getByLabel("Message").fill("Deploy at 22:00 UTC");
  await page.getByLabel("Level").selectOption("warning");
  await page.getByRole("radio", { name: "Roles" }).check();
  await page.getByRole("checkbox", { name: "Manager" }).check();
  // A mouse click right after ticking a role (the audience error must not move the button).
  await page.getByRole("button", { name: "Send notice" }).click();
  const confirm = page.getByRole("alertdialog", {
    name: /^Send to the role Manager \(\d+ (of \d+ )?(person|people)\)\?$/,
  });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Send notice" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Sent to \d+ (person|people)/ })).toBeVisible();
  // A warning is shown as a warning, not as a red error.
  await expect(page.getByRole("row", { name: /Release tonight/ }).first()).toContainText("Warning");
  await expect(page.getByRole("cell", { name: "Roles: Manager" }).first()).toBeVisible();

  // Live, without reload: a toast and the bell count.
  await expect(
    managerPage.getByRole("status").filter({ hasText: "Release tonight: Deploy at 22:00 UTC" }),
  ).toBeVisible();
  await expect(managerPage.getByRole("button", { name: /Notifications, 1 unread/ })).toBeVisible();
  await managerPage.getByRole("button", { name: /Notifications/ }).click();
  await expect(managerPage.getByRole("dialog", { name: "Notifications" })).toContainText("Release tonight");
  await managerPage.getByRole("button", { name: "Mark all as read" }).click();
  await expect(managerPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();

  await expect(userPage.getByRole("button", { name: /Notifications, 0 unread/ })).toBeVisible();
  await expect(userPage.getByText("Release tonight")).toHaveCount(0);
  // A later notice to the plain user's own role: one stream delivers in order, so once it is there,
  // the first one would have been too, had it been sent to them.
  await page.getByLabel("Title").fill("For users only");
  await page.getByLabel("Message").fill("A later notice");
  await page.getByRole("radio", { name: "Roles" }).check();
  await page.getByRole("checkbox", { name: "Manager" }).uncheck();
  await page.getByRole("checkbox", { name: "User", exact: true }).check();
  await page.getByRole("button", { name: "Send notice" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Send notice" }).click();
  await expect(
    userPage.getByRole("status").filter({ hasText: "For users only: A later notice" }),
  ).toBeVisible();
  await expect(userPage.getByRole("button", { name: /Notifications, 1 unread/ })).toBeVisible();
  await userPage.getByRole("button", { name: /Notifications/ }).click();
  await expect(userPage.getByRole("dialog", { name: "Notifications" })).toContainText("For users only");
  await expect(userPage.getByText("Release tonight")).toHaveCount(0);
  await managerContext.close();
  await userContext.close();
});

test("the overview shows cards the viewer may see", async ({ login, page }) => {
  const plain = await createUser(["user"], "Overview User");
  await login(plain);
  const cards = page.getByTestId("overview-cards");
  await expect(cards).toContainText("Your tasks");
  await expect(cards).not.toContainText("Users");
  await page.context().clearCookies();
  await signIn(page, E2E_ADMIN.email, E2E_ADMIN.password); // the form: its sign-in audit row is what the card shows
  await expect(page.getByTestId("overview-cards")).toContainText("Users");
  await expect(page.getByRole("group", { name: /Sign-ins: \d+ in 14 days/ })).toBeVisible();
  await expect(page.getByTestId("recent-activity")).toContainText("Signed in");
  await expect(page.getByTestId("recent-activity")).not.toContainText("auth.login.succeeded");
});

test("keyboard only: compose, Send asks naming the audience and its size, the composer is empty afterwards", async ({
  login,
  page,
}) => {
  const problems = watchConsole(page);
  await login(E2E_ADMIN, page, "/dashboard/broadcast");
  const title = page.getByLabel("Title");
  await title.focus();
  await page.keyboard.type("Keyboard notice");
  await page.keyboard.press("Tab");
  await page.keyboard.type("Sent without a mouse");
  const send = page.getByRole("button", { name: "Send notice" });
  await send.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: `Send to everyone (${await everyone()})?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  // Escape sends nothing and returns to the button.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(send).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  const region = page.getByRole("region", { name: "Updates" });
  await expect(region.getByRole("status").filter({ hasText: /Sent to \d+ (person|people)/ })).toBeVisible();
  // The dialog gives the focus back to its button; the toast only announces.
  await expect(send).toBeFocused();
  await expect(page.getByRole("row", { name: /Keyboard notice/ }).first()).toBeVisible();
  await expect(title).toHaveValue("");
  await expect(page.getByLabel("Message")).toHaveValue("");
  await expect(page.getByRole("radio", { name: "Everyone" })).toBeChecked();
  expect(problems).toEqual([]);
});

test("an invalid notice is not offered for sending: focus goes to the first field to fix", async ({
  login,
  page,
}) => {
  await login(E2E_ADMIN, page, "/dashboard/broadcast");
  await page.getByRole("radio", { name: "Roles" }).check();
  await page.getByRole("button", { name: "Send notice" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await expect(page.getByLabel("Title")).toBeFocused();
  await expect(page.getByText("Choose at least one role.")).toBeVisible();
});

for (const viewport of ["desktop", "phone"] as const) {
  test(`axe: broadcast with the confirmation open, ${viewport}, light and dark`, async ({ login, page }) => {
    const problems = watchConsole(page);
    if (viewport === "phone") await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: "light" });
    // Someone besides the super admin, so everyone is "people" even on a fresh server.
    await createUser(["user"], `Axe Audience ${viewport} light`);
    await chooseTheme(page, "light");
    await login(E2E_ADMIN, page, "/dashboard/broadcast");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    expect(await axeBothThemes(page, "broadcast")).toEqual([]);
    await page.getByLabel("Title").fill("Axe notice");
    await page.getByLabel("Message").fill("Checking");
    await page.getByRole("radio", { name: "Teams" }).check();
    await page.getByRole("radio", { name: "Everyone" }).check();
    await page.getByRole("button", { name: "Send notice" }).click();
    await expect(page.getByRole("alertdialog", { name: /people\)\?$/ })).toBeVisible();
    expect(await axeBothThemes(page, "confirmation")).toEqual([]);
    await page.keyboard.press("Escape");
    expect(problems).toEqual([]);
  });
}

test("the teams to send to are fetched once Teams is picked; the confirmation says of how many and why the others are left out, in English and German", async ({
  login,
  page,
}) => {
  const name = `Broadcast crew ${Date.now()}`;
  const reached = await createUser(["user"], `Crew Verified ${Date.now()}`);
  const pending = await createUser(["user"], `Crew Pending ${Date.now()}`);
  const german = await createUser(["admin"], `Crew Admin ${Date.now()}`);
  const db = createDb(`file:${E2E_DB}`);
  try {
    const ts = new Date().toISOString();
    const team = crypto.randomUUID();
    await db
      .insertInto("team")
      .values({ id: team, name, description: "", created_at: ts, updated_at: ts })
      .execute();
    await db
      .insertInto("team_member")
      .values(
        [reached, pending].map((u) => ({
          team_id: team,
          user_id: u.id,
          team_role: "member",
          created_at: ts,
        })),
      )
      .execute();
    await db.updateTable("user").set({ email_verified: 0 }).where("id", "=", pending.id).execute();
    await db.updateTable("user").set({ locale: "de" }).where("id", "=", german.id).execute();
  } finally {
    await db.destroy();
  }
  await login(E2E_ADMIN, page, "/dashboard/broadcast");
  await expect(page.getByRole("checkbox", { name })).toHaveCount(0);
  await page.getByLabel("Title").fill("Crew notice");
  await page.getByLabel("Message").fill("Hello crew");
  await page.getByRole("radio", { name: "Teams" }).check();
  await page.getByRole("checkbox", { name }).check();
  await page.getByRole("button", { name: "Send notice" }).click();
  const confirm = page.getByRole("alertdialog", { name: `Send to the team ${name} (1 of 2 people)?` });
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText("Left out: 1 has not confirmed their email address.");
  await page.keyboard.press("Escape");

  await page.context().clearCookies();
  await login(german, page, "/dashboard/broadcast");
  await page.getByLabel("Titel").fill("Crew");
  await page.getByLabel("Nachricht", { exact: true }).fill("Hallo");
  await page.getByRole("radio", { name: "Teams" }).check();
  await page.getByRole("checkbox", { name }).check();
  await page.getByRole("button", { name: "Mitteilung senden" }).click();
  const deutsch = page.getByRole("alertdialog", { name: `An das Team ${name} (1 von 2 Personen) senden?` });
  await expect(deutsch).toContainText("Nicht erreicht: 1 hat die E-Mail-Adresse nicht bestätigt.");
  await page.keyboard.press("Escape");
});
