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

/** A 4xx React Router raises itself is no fault, and logging it would let anyone flood the logs. */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  // An unreachable database is one line, not a stack per request while it lasts.
  if (noteFailure(error, context)) {
    if (!(error instanceof Response)) console.error(`database unavailable: ${String(error)}`);
    return;
  }
  if (isRouteErrorResponse(error) && error.status < 500) return;
  if (isOriginRefusal(error)) return;
  console.error(error);
};

function isOriginRefusal(error: unknown): boolean {
  return error instanceof Error && (error.message === "Bad Request" || /`origin` header/.test(error.message));
}

/** Buffered whole: the app has no Suspense boundary, so one write beats a chain of chunks (decision 041). */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
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
