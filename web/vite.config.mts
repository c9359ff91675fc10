import { defineConfig } from 'vite';

// Built by `npm run build` into dist/web, which the service serves at /console/.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // The polyfill would be the only reason for an inline script; every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
