import { index, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("dash", "routes/dash.tsx"),
  route("api/ping", "routes/api.ping.ts"),
] satisfies RouteConfig;
