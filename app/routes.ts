import { index, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("login", "routes/login.tsx"),
  route("logout", "routes/logout.tsx"),
  route("theme", "routes/theme.tsx"),
  route("dashboard", "routes/dashboard.tsx", [
    index("routes/dashboard-home.tsx"),
    route("users", "routes/dashboard.users.tsx"),
    route("users/:id", "routes/dashboard.users.$id.tsx"),
  ]),
  route("api/access/sync", "routes/api.access.sync.ts"),
  route("api/ping", "routes/api.ping.ts"),
  route("api/tasks", "routes/api.tasks.ts"),
  route("api/tasks/:id", "routes/api.tasks.$id.ts"),
  route("api/tasks/:id/download", "routes/api.tasks.$id.download.ts"),
  route("api/webhooks/tasks", "routes/api.webhooks.tasks.ts"),
  route("api/events", "routes/api.events.ts"),
  route("api/*", "routes/api.not-found.ts"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
