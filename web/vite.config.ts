/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/**
 * Placeholder Vite writes as the `nonce` of the tags it generates and of
 * `<meta property="csp-nonce">`; the service replaces it with a fresh nonce in every response
 * (src/dashboard-web/serve-dashboard.ts, which declares the same value).
 */
const CSP_NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * Writes `.br` and `.gz` next to every built asset over 1 KiB, which the service sends to the
 * browsers that accept them (@fastify/static's `preCompressed`): no compression at run time.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'campaign-api:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter(
        (name) => name.startsWith('assets/') && /\.(js|css|svg|json)$/.test(name),
      );
      await Promise.all(
        files.map(async (name) => {
          const path = join(outDir, name);
          const content = await readFile(path);
          if (content.length < 1024) return;
          await writeFile(`${path}.gz`, gzipSync(content, { level: 9 }));
          await writeFile(
            `${path}.br`,
            brotliCompressSync(content, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 11,
                [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
          );
        }),
      );
    },
  };
}

/** Where `npm run dev` proxies `/dashboard/api` to: a service started with `npm start`. */
const apiTarget = process.env.DASHBOARD_API_TARGET ?? 'http://127.0.0.1:3000';

export default defineConfig(({ command, mode }) => {
  // A production build is a production build whatever NODE_ENV the caller had (Jest sets
  // `test`, a shell may have `development`): otherwise React's development build would ship.
  // `vite build --mode development` still makes a development build on purpose.
  if (command === 'build' && mode === 'production') process.env.NODE_ENV = 'production';
  return {
    // The service serves the app at /dashboard/ (docs/dashboard.md).
    base: '/dashboard/',
    plugins: [react(), precompress()],
    html: { cspNonce: CSP_NONCE_PLACEHOLDER },
    build: {
      // Into the service's dist/, which `npm run build` fills with the compiled service too.
      outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
      emptyOutDir: true,
      target: 'es2022',
      // scripts/bundle-budget.mjs enforces the budget on the initial JavaScript (gzipped).
      chunkSizeWarningLimit: 600,
    },
    server: {
      port: 5173,
      strictPort: true,
      proxy: {
        '/dashboard/api': {
          target: apiTarget,
          changeOrigin: true,
          // The service accepts a state-changing request only from its own origin (docs/dashboard.md
          // #cross-site-request-forgery): the dev server's page is on another port, so the proxied
          // request carries the service's origin instead.
          configure: (proxy) => {
            proxy.on('proxyReq', (proxyRequest) => {
              if (proxyRequest.getHeader('origin')) proxyRequest.setHeader('origin', apiTarget);
            });
          },
        },
      },
    },
    preview: { port: 4173, strictPort: true },
    test: {
      environment: 'jsdom',
      setupFiles: ['./src/testing/setup.ts'],
      include: ['src/**/*.test.{ts,tsx}'],
      restoreMocks: true,
      unstubGlobals: true,
      // Whole pages typed into by user-event in jsdom take a few seconds.
      testTimeout: 20_000,
    },
  };
});
