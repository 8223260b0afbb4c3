import { createServer } from "node:http";
import { PREVIEWS } from "../emails/preview-props";
import { renderEmail } from "../emails/render-email";

// `npm run email:dev`: every email type rendered with sample props, HTML and plain text, reloaded
// on change by `tsx watch`. A few lines instead of the react-email preview server, which needs
// Next.js and native image tooling; the template also keeps the PreviewProps that server reads.

const port = Number(process.env.EMAIL_PREVIEW_PORT ?? 3001);
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", `http://localhost:${port}`);
  const preview = PREVIEWS.find((p) => `/${p.name}` === url.pathname);
  if (!preview) {
    const items = PREVIEWS.map(
      (p) => `<li><a href="/${p.name}">${p.name}</a> · <a href="/${p.name}?format=text">plain text</a></li>`,
    ).join("");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Email preview</title><h1>Email preview</h1><ul>${items}</ul>`);
    return;
  }
  const { html, text } = await renderEmail({ ...preview.props, appName: "Admin Dashboard" });
  if (url.searchParams.get("format") === "text") {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>${preview.name} (text)</title><pre>${escapeHtml(text)}</pre>`);
    return;
  }
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  res.end(html);
}).listen(port, () => console.log(`Email preview at http://localhost:${port}`));
