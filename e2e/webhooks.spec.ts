import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { createUser, expect, tabTo, test, watchConsole } from "./fixtures";

// Settings → Webhooks by keyboard: add an endpoint (its secret shown once), send a test to a
// receiver that fails first, watch the delivery fail and then succeed in the log, and send it again.

let receiver: Server;
let url = "";
const bodies: { id: string; body: string; signature: string; timestamp: string }[] = [];
/** The receiver refuses the first test message it is sent, and takes everything else. */
let testRefused = false;

test.beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    bodies.push({
      id: String(req.headers["webhook-id"]),
      body,
      signature: String(req.headers["webhook-signature"]),
      timestamp: String(req.headers["webhook-timestamp"]),
    });
    if (!testRefused && JSON.parse(body).type === "webhook.test") {
      testRefused = true;
      res.writeHead(503).end("receiver is restarting");
    } else res.writeHead(204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/dashboard`;
});

test.afterAll(() => receiver.close());

test("add an endpoint by keyboard, see a test delivery fail then succeed, send it again", async ({
  login,
  page,
}) => {
  test.slow(); // the retry comes 5 s after the failure
  const problems = watchConsole(page);
  const admin = await createUser(["super_admin"], "Webhook Keeper");
  await login(admin, page, "/dashboard/settings/webhooks");
  const link = page
    .getByRole("navigation", { name: "Settings pages" })
    .getByRole("link", { name: "Webhooks" });
  await expect(link).toHaveAttribute("aria-current", "page");

  const address = page.getByLabel("Receiver address (https://…)");
  await tabTo(page, address);
  await page.keyboard.type(url);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Description")).toBeFocused();
  await page.keyboard.type("E2E receiver");
  await tabTo(page, page.getByRole("button", { name: "Add endpoint" }));
  await page.keyboard.press("Enter");
  const reveal = page.getByRole("dialog", { name: "The endpoint's signing secret" });
  const secret = await reveal.getByTestId("webhook-secret").inputValue();
  expect(secret).toMatch(/^whsec_/);
  await tabTo(page, reveal.getByRole("button", { name: "I have saved it" }));
  await page.keyboard.press("Enter");
  await expect(reveal).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Copy its signing secret now." })).toBeVisible();

  const endpoint = page.getByTestId("webhook-endpoint").filter({ hasText: url });
  await expect(endpoint).toContainText("Active");
  await tabTo(page, endpoint.getByRole("button", { name: "Send test" }));
  await page.keyboard.press("Enter");
  await tabTo(page, endpoint.getByRole("button", { name: "Show deliveries" }));
  await page.keyboard.press("Enter");
  const delivery = endpoint.getByTestId("webhook-delivery").filter({ hasText: "webhook.test" });
  // First answer 503: the log shows the failure and when it tries again; then the retry lands.
  await expect(delivery).toContainText("503", { timeout: 15_000 });
  await expect(delivery).toContainText("receiver is restarting");
  await expect(delivery).toContainText("Delivered", { timeout: 30_000 });
  await expect(delivery).toContainText("2 attempts");

  // Verified as a receiver would, with the secret shown once.
  const last = bodies.filter((b) => JSON.parse(b.body).type === "webhook.test").at(-1)!;
  const verified = new Webhook(secret).verify(last.body, {
    "webhook-id": last.id,
    "webhook-timestamp": last.timestamp,
    "webhook-signature": last.signature,
  }) as { type: string };
  expect(verified.type).toBe("webhook.test");
  const tests = () => bodies.filter((b) => JSON.parse(b.body).type === "webhook.test");
  const sent = tests().length;

  await tabTo(page, delivery.getByRole("button", { name: /^Send again/ }));
  await page.keyboard.press("Enter");
  await expect(endpoint.getByRole("status").filter({ hasText: "queued to be sent again" })).toBeVisible();
  await expect.poll(() => tests().length, { timeout: 15_000 }).toBe(sent + 1);
  expect(tests().at(-1)!.id).toBe(last.id); // the same message id on every delivery
  expect(problems).toEqual([]);
});
