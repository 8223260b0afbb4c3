import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import {
  type EntryContext,
  type HandleErrorFunction,
  isRouteErrorResponse,
  type RouterContextProvider,
  ServerRouter,
} from "react-router";
import { RequestIdProvider } from "./components/request-reference";
import { requestIdOf } from "./http/request-info.server";
import { nonceContext } from "./http/security.server";
import { metUnavailableDatabase, noteFailure, unavailablePage } from "./http/unavailable.server";
import { getI18n } from "./i18n/i18n.server";

// What server.ts takes from the build, so that it holds no module of the app itself.
export { startMetricsListener } from "./metrics/endpoint.server";
export { createAppListener } from "./server/http-server.server";
export { createRequestContext, lifecycle } from "./server/lifecycle.server";

export const streamTimeout = 5_000;

/**
 * React Router logs every error with its stack. A 4xx it raises itself (a POST to a page without an
 * action, an unknown path, an action from another origin) is an answer to a bad request, not a
 * fault: logging it would let anyone flood the logs. Aborted requests (the client left) are not
 * faults either.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  // An unreachable database (a restart, a failover) is answered 503 (app/http/unavailable.server.ts):
  // one line, not a stack per request while it lasts; the 503 page thrown below is no fault either.
  if (noteFailure(error, context)) {
    if (!(error instanceof Response)) console.error(`database unavailable: ${String(error)}`);
    return;
  }
  if (isRouteErrorResponse(error) && error.status < 500) return;
  if (isOriginRefusal(error)) return;
  console.error(error);
};

/** React Router's own refusal of a page action from another origin (a 400 it has answered already). */
function isOriginRefusal(error: unknown): boolean {
  return error instanceof Error && (error.message === "Bad Request" || /`origin` header/.test(error.message));
}

/**
 * Renders the whole document, then answers it as one body with a length. The app has no Suspense
 * boundary of its own (loaders finish before rendering starts), so the shell is the page: waiting
 * for all of it costs no time to first byte, and one buffer is one write to the socket instead of
 * a chain of stream chunks, each a syscall (decision 041).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  // A loader or middleware met an unreachable database: React Router renders the error boundary
  // again with this 503 (app/http/unavailable.server.ts), which says to try again shortly.
  if (responseStatusCode === 500 && metUnavailableDatabase(loadContext))
    throw unavailablePage(getI18n(loadContext).t("common:error.unavailable"));
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.get(nonceContext) || undefined;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const chunks: Buffer[] = [];
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(
      () => abort(),
      streamTimeout + 1000,
    );
    const body = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
      final(callback) {
        clearTimeout(timeoutId);
        timeoutId = undefined;
        const html = Buffer.concat(chunks);
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        // Known here: the server pipeline need not read the body to learn it (withKnownLength).
        responseHeaders.set("Content-Length", String(html.byteLength));
        resolve(new Response(html, { headers: responseHeaders, status: responseStatusCode }));
        callback();
      },
    });

    const { pipe, abort } = renderToPipeableStream(
      <I18nextProvider i18n={getI18n(loadContext)}>
        {/* The request id reaches error pages even when no loader ran (request-reference.tsx). */}
        <RequestIdProvider value={requestIdOf(loadContext)}>
          <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
        </RequestIdProvider>
      </I18nextProvider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          pipe(body);
        },
        onShellError(error: unknown) {
          clearTimeout(timeoutId);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}
