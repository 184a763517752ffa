// The web console's build: Vite 8 (Rolldown, with oxc transforming TSX) and Preact's
// automatic JSX runtime, without @preact/preset-vite (its dev-time extras are not needed
// for a build served by the API). Output: dist/console-web, served at /console/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/console-web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    // No inline data: scripts or styles, so the page's CSP can stay 'self' only.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
});
