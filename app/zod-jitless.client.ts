import { z } from "zod";

// The browser's zod never compiles parsers with `new Function`: the Content-Security-Policy allows
// no eval (app/http/security.server.ts), and zod's probe for it was a reported violation on every
// page with a form. An object schema decides when it is built, so this runs before any schema
// module: it is the first import of app/root.tsx (the first route module the page's script imports,
// before app/entry.client.tsx, which imports it first too). `.client`: the server build gets an
// empty module, so server-side parsing keeps zod's compiled fast path.
z.config({ jitless: true });
