/**
 * The app's ServerBuild made from vitest's own module graph: the route config of app/routes.ts,
 * each route module and app/entry.server.tsx imported like any other module of the test file,
 * and the assets manifest written the way React Router's Vite plugin writes it for its dev server
 * (`getReactRouterManifestForDev` and `getServerEntry` in @react-router/dev/dist/vite.js). So the
 * app runs as the same module instance as the test, and costs only its imports, which vitest
 * transforms once per run for every worker. vitest.config.ts stubs `.client` modules as the
 * plugin does for the server; `withProps` does what its route transform does on both sides.
 */
import { fileURLToPath } from "node:url";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import {
  type ServerBuild,
  UNSAFE_withComponentProps,
  UNSAFE_withErrorBoundaryProps,
  UNSAFE_withHydrateFallbackProps,
} from "react-router";
import config from "../react-router.config";

const appDirectory = fileURLToPath(new URL("../app/", import.meta.url));

type RouteEntry = {
  id: string;
  parentId: string | undefined;
  file: string;
  path: string | undefined;
  index: boolean | undefined;
  caseSensitive: boolean | undefined;
};

/** React Router's route manifest: the root route around app/routes.ts, ids from the file names. */
function manifestOf(routes: RouteConfigEntry[]): RouteEntry[] {
  const entries: RouteEntry[] = [];
  const walk = (route: RouteConfigEntry, parentId: string | undefined) => {
    const id = route.id ?? route.file.replace(/\.[a-z0-9]+$/i, "");
    entries.push({
      id,
      parentId,
      file: route.file,
      path: route.path,
      index: route.index,
      caseSensitive: route.caseSensitive,
    });
    for (const child of route.children ?? []) walk(child, id);
  };
  walk({ id: "root", path: "", file: "root.tsx", children: routes }, undefined);
  return entries;
}

/** A module of the app by its path from the project root, as the test file would import it. */
export function importFromRoot<T>(file: string): Promise<T> {
  return import(/* @vite-ignore */ fileURLToPath(new URL(`../${file}`, import.meta.url)));
}

type RouteModule = NonNullable<ServerBuild["routes"][string]>["module"];

/** The plugin's `decorateComponentExportsWithProps`: route components get loaderData, params… as props. */
function withProps(module: RouteModule): RouteModule {
  const m = module as unknown as Record<string, never>;
  const wrapped: Record<string, unknown> = { ...m };
  if (m.default) wrapped.default = UNSAFE_withComponentProps(m.default);
  if (m.ErrorBoundary) wrapped.ErrorBoundary = UNSAFE_withErrorBoundaryProps(m.ErrorBoundary);
  if (m.HydrateFallback) wrapped.HydrateFallback = UNSAFE_withHydrateFallbackProps(m.HydrateFallback);
  return wrapped as unknown as RouteModule;
}

export async function loadServerBuild(): Promise<ServerBuild> {
  const { default: routeConfig } = await import("../app/routes");
  const manifest = manifestOf(await routeConfig);
  const [entryServer, ...modules] = await Promise.all([
    import("../app/entry.server"),
    ...manifest.map((route) => import(/* @vite-ignore */ appDirectory + route.file) as Promise<RouteModule>),
  ]);
  const routes: ServerBuild["routes"] = {};
  const assetRoutes: ServerBuild["assets"]["routes"] = {};
  manifest.forEach((route, i) => {
    const module = withProps(modules[i]!);
    const { file, ...shape } = route;
    routes[route.id] = { ...shape, module };
    const has = (name: string) =>
      name in module && (module as unknown as Record<string, unknown>)[name] !== undefined;
    assetRoutes[route.id] = {
      ...shape,
      module: `/app/${file}`,
      clientActionModule: undefined,
      clientLoaderModule: undefined,
      clientMiddlewareModule: undefined,
      hydrateFallbackModule: undefined,
      hasAction: has("action"),
      hasLoader: has("loader"),
      hasClientAction: has("clientAction"),
      hasClientLoader: has("clientLoader"),
      hasClientMiddleware: has("clientMiddleware"),
      hasErrorBoundary: has("ErrorBoundary"),
      imports: [],
    };
  });
  return {
    entry: { module: entryServer as unknown as ServerBuild["entry"]["module"] },
    routes,
    assets: {
      version: "test",
      url: "/@react-router/browser-manifest",
      entry: { module: "/app/entry.client.tsx", imports: [] },
      routes: assetRoutes,
    },
    assetsBuildDirectory: "build/client",
    basename: "/",
    future: config.future as ServerBuild["future"],
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
    publicPath: "/",
    allowedActionOrigins: false,
  } as ServerBuild;
}
