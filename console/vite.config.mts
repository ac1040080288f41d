import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';

// Built into dist/ with hashed names under assets/ (the gateway caches those as immutable). No
// inline module preload polyfill and no inlined assets, so the page runs under a CSP without
// 'unsafe-inline' or data: scripts.
export default defineConfig({
  plugins: [react()],
  // Value lists the console shares with the API, from the contracts' dependency-free source module
  // (the package's entry would bring zod and the route table into the bundle).
  resolve: {
    alias: {
      '@bulwark/contracts/vex': fileURLToPath(new URL('../packages/contracts/src/vex.ts', import.meta.url)),
      '@bulwark/contracts/quality-gates': fileURLToPath(
        new URL('../packages/contracts/src/quality-gates.ts', import.meta.url),
      ),
    },
  },
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
