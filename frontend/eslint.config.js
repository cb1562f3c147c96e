// ESLint (flat config): typescript-eslint's recommended rules, the rules of hooks, and the bulletproof-react
// boundaries as a rule instead of a habit: a feature imports no other feature (shared code lives in src/lib,
// src/components and src/hooks), and those shared folders import no feature and not the app.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const src = fileURLToPath(new URL("./src", import.meta.url));
const features = readdirSync(`${src}/features`, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

export default defineConfig(
  { ignores: ["dist/", "node_modules/", "src/lib/api-schema.d.ts"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat.recommended,
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { "import-x": importX },
    settings: {
      // resolves `@/…` as tsconfig's paths and vite's alias do, so the zones below see where an import lands
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js"], alias: { "@": [src] } })],
    },
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            ...features.map((f) => ({
              target: `./src/features/${f}`,
              from: "./src/features",
              except: [`./${f}`],
              message: "Features do not import each other: move what both need to src/lib or src/components, or compose them in src/app.",
            })),
            {
              target: ["./src/lib", "./src/components", "./src/hooks"],
              from: ["./src/features", "./src/app"],
              message: "Shared code (lib, components, hooks) imports no feature and not the app.",
            },
            { target: "./src/features", from: "./src/app", message: "Features do not import the app; the app composes features." },
          ],
        },
      ],
      "import-x/no-unresolved": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["*.{js,ts}"],
    languageOptions: { globals: globals.node },
  },
);
