import { fileURLToPath, URL } from "node:url";
import { defineConfig } from "vite";

// Django serves the built files under /static/ (whitenoise) and index.html for every app route.
export default defineConfig({
  base: "/static/",
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      // TanStack Query's "use client" markers are for server components, which this app does not use
      onwarn(warning, warn) {
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
  server: {
    // `npm run dev` talks to `make run` on :8000 for the API.
    proxy: { "/api": "http://127.0.0.1:8000" },
  },
});
