import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import { DOCS_UI_ASSETS } from "../protocol/console-routes.ts";

const webRoot = path.dirname(fileURLToPath(import.meta.url));

/** The folder of an installed package, found the way Node looks up node_modules. */
function packageDir(name: string): string {
  for (let dir = webRoot; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed`);
  }
}

/**
 * Copies the API reference UI (Swagger UI's prebuilt bundle and stylesheet, from swagger-ui-dist) into
 * the build, where /docs loads it: nothing of it is committed, nothing is fetched from a CDN at run time.
 */
function docsUi(): Plugin {
  return {
    name: "voxedge-docs-ui",
    apply: "build",
    generateBundle() {
      const dist = packageDir("swagger-ui-dist");
      for (const asset of Object.values(DOCS_UI_ASSETS)) {
        const fileName = asset.slice(1);
        this.emitFile({
          type: "asset",
          fileName,
          source: readFileSync(path.join(dist, path.basename(asset))),
        });
      }
    },
  };
}

// The console: Preact through Vite's built-in JSX transform (no framework plugin needed), built into
// web/dist, which wrangler.toml serves as Workers Static Assets.
export default defineConfig({
  root: webRoot,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [docsUi()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Fonts and icons stay files of the build (never inlined, never from a CDN).
    assetsInlineLimit: 0,
  },
});
