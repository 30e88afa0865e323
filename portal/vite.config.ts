import { defineConfig } from 'vite';
import { preact } from '@preact/preset-vite';

// Paths relative to this file, so the build works from any working directory.
const here = (path: string): string => decodeURIComponent(new URL(path, import.meta.url).pathname);

// Vite reads its configuration from the default export.
// eslint-disable-next-line no-restricted-syntax
export default defineConfig({
  root: here('.'),
  base: '/portal/',
  plugins: [preact()],
  // `npx vite --config portal/vite.config.ts`: the API (npm run dev) answers the session and /v1 calls.
  server: {
    proxy: Object.fromEntries(
      ['/portal/session', '/v1'].map((path) => [path, process.env.HERALD_URL ?? 'http://127.0.0.1:3000']),
    ),
  },
  build: {
    outDir: here('../dist/portal'),
    emptyOutDir: true,
    // Under the portal's Content-Security-Policy nothing may be inlined: no data: fonts, no inline scripts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
