import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding Herald's package.json, from here (src/portal) or from its build (dist/src/portal). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('Herald: no package.json above src/portal');
    dir = up;
  }
  return dir;
}

/** Where the portal's built assets are (`npm run build:portal` writes them): HERALD_PORTAL_ASSETS, else dist/portal. */
export const portalAssetsDir = (configured: string | undefined): string =>
  resolve(configured ?? join(packageRoot(), 'dist', 'portal'));
