import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

// Vite runs from this folder (`npx react-router build` in bench/stock) and resolves packages
// through the project's node_modules one level up.
export default defineConfig({ plugins: [reactRouter()] });
