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
    // Each page is a chunk loaded with its route (src/app/routes.tsx); this warns if one grows past 500 kB again.
    chunkSizeWarningLimit: 500,
    rolldownOptions: {
      // TanStack Query's "use client" markers are for server components, which this app does not use
      onwarn(warning, warn) {
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
      output: {
        // Libraries in chunks of their own: a new build of the app's code leaves them cached in the browser, and
        // the editor's and the lineage graph's libraries load only with those pages.
        codeSplitting: {
          groups: [
            { name: "react", test: /[\\/]node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser)[\\/]/ },
            { name: "query", test: /[\\/]node_modules[\\/]@tanstack[\\/]/ },
            { name: "codemirror", test: /[\\/]node_modules[\\/](@codemirror|@lezer|@marijn|crelt|style-mod|w3c-keyname)[\\/]/ },
            { name: "graph", test: /[\\/]node_modules[\\/](@xyflow|@dagrejs|d3-[\w-]+|zustand|classcat)[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev` talks to `make run` on :8000 for the API.
    proxy: { "/api": "http://127.0.0.1:8000" },
  },
});
