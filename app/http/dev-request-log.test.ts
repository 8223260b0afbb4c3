import { describe, expect, it } from "vitest";
import { devRequestLine, isDevAsset } from "./dev-request-log.server";

const entry = (url: string, status = 200, method = "GET") => ({
  method,
  url,
  status,
  ms: 12.4,
  requestId: "7077c91b-6a37-4e6e-9868-69b30ea8ad2f",
});

describe("the development request log", () => {
  it("is one short line a request: method, path, status, milliseconds", () => {
    expect(devRequestLine(entry("/dashboard"))).toBe("GET /dashboard 200 12 ms");
    expect(devRequestLine(entry("/login", 302, "POST"))).toBe("POST /login 302 12 ms");
    expect(devRequestLine(entry("/dashboard/users?q=ann&page=2"))).toBe(
      "GET /dashboard/users?q=ann&page=2 200 12 ms",
    );
    expect(devRequestLine(entry("/dashboard/users.data?_routes=routes%2Fdashboard.users"))).toBe(
      "GET /dashboard/users.data?_routes=routes%2Fdashboard.users 200 12 ms",
    );
    expect(devRequestLine(entry("/api/tasks", 429, "POST"))).toBe("POST /api/tasks 429 12 ms");
    expect(devRequestLine({ ...entry("/dashboard"), ms: 0.04 })).toBe("GET /dashboard 200 0 ms");
  });

  it("names the request id of a server error, which its error line carries", () => {
    expect(devRequestLine(entry("/dashboard", 500))).toBe(
      "GET /dashboard 500 12 ms (request 7077c91b-6a37-4e6e-9868-69b30ea8ad2f)",
    );
  });

  it("leaves out what Vite serves the browser to run the app", () => {
    for (const url of [
      "/assets/root-B1c2.js",
      "/@vite/client",
      "/@id/__x00__virtual:react-router/hmr-runtime",
      "/@fs/work/app/node_modules/vite/dist/client/env.mjs",
      "/@react-refresh",
      "/@react-router/critical.css?pathname=/dashboard",
      "/node_modules/.vite/deps/react-i18next.js?v=1bd4746c",
      "/app/entry.client.tsx",
      "/app/routes/dashboard.tsx",
      "/app/app.css",
      "/__manifest?paths=%2Fdashboard&version=abc",
      "/favicon.svg",
      "/favicon.ico",
      "/apple-touch-icon.png",
      "/icon-192.png",
      "/site.webmanifest",
    ]) {
      expect(isDevAsset(url), url).toBe(true);
      expect(devRequestLine(entry(url)), url).toBeUndefined();
      expect(devRequestLine(entry(url, 304)), url).toBeUndefined();
    }
  });

  it("shows an asset that failed (a missing file, the optimizer's 504)", () => {
    expect(devRequestLine(entry("/node_modules/.vite/deps/zod.js?v=0d217cb1", 504))).toBe(
      "GET /node_modules/.vite/deps/zod.js?v=0d217cb1 504 12 ms (request 7077c91b-6a37-4e6e-9868-69b30ea8ad2f)",
    );
    expect(devRequestLine(entry("/app/missing.ts", 404))).toBe("GET /app/missing.ts 404 12 ms");
  });

  it("keeps pages, data, API and form posts whose paths only start like an asset's", () => {
    for (const url of [
      "/",
      "/login",
      "/dashboard",
      "/api/events",
      "/application",
      "/apps",
      "/assets",
      "/favicons-page",
    ]) {
      expect(isDevAsset(url), url).toBe(false);
    }
  });
});
