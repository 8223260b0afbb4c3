import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RowRefusal } from "./use-settings-form";

// A row's refused action (the endpoint or directory another admin removed, a permission lost) says
// why: refusals carry formError (app/http/form.server.ts), which the rows once never showed.
describe("RowRefusal", () => {
  const render = (answer: object | undefined) => renderToStaticMarkup(createElement(RowRefusal, { answer }));

  it("shows a refusal's reason as an alert", () => {
    const html = render({
      ok: false,
      intent: "webhook-test",
      errors: {},
      formError: "That endpoint no longer exists.",
    });
    expect(html).toBe('<p role="alert" class="text-sm text-destructive">That endpoint no longer exists.</p>');
  });

  it("shows nothing for a success, a field error or no answer yet", () => {
    expect(render({ ok: true, intent: "webhook-test", message: "Test queued." })).toBe("");
    expect(
      render({ ok: false, intent: "webhook-test", errors: { url: "Enter a URL." }, formError: null }),
    ).toBe("");
    expect(render(undefined)).toBe("");
  });
});
