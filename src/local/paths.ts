import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The repository root, found from this file whether it runs from source or from dist/. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

export function fromRoot(path: string): string {
  return isAbsolute(path) ? path : resolve(repoRoot(), path);
}

/** A binary built by scripts/setup-tools.sh. */
export function toolPath(toolsDir: string, name: 'temporal' | 'ferretdb' | 'temporal-test-server'): string {
  const path = join(fromRoot(toolsDir), 'bin', name);
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: run \`npm run tools\` (scripts/setup-tools.sh) to build it`);
  }
  return path;
}
