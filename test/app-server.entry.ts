// Loaded through the app's Vite instance by test/app-server.ts, so the request handler and the
// app share one copy of react-router (its handler checks the request context with instanceof).
export { createRequestHandler } from "react-router";
