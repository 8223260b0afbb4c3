import { render } from "@react-email/render";
import { createElement } from "react";
import { TransactionalEmail, type TransactionalEmailProps } from "./transactional-email";

export type RenderedEmail = { html: string; text: string };

/** The HTML and the plain-text part of one email, from the same element. */
export async function renderEmail(props: TransactionalEmailProps): Promise<RenderedEmail> {
  const element = createElement(TransactionalEmail, props);
  const [html, text] = await Promise.all([
    render(element),
    render(element, {
      plainText: true,
      // Keep the heading as written; html-to-text shouts it in capitals by default.
      htmlToTextOptions: { selectors: [{ selector: "h1", options: { uppercase: false } }] },
    }),
  ]);
  return { html, text };
}
