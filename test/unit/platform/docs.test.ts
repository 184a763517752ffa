import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fromRoot } from '../../../src/local/paths';

/** README.md and docs/*.md, as a clone has them. */
const pages = ['README.md', ...readdirSync(fromRoot('docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('the README and docs', () => {
  it('point at nothing outside the repository: every relative link and ../ path resolves inside a clone', () => {
    const outside: string[] = [];
    for (const page of pages) {
      // Code examples are relative to the file they would sit in; prose and inline paths are not.
      const text = readFileSync(fromRoot(page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.replace(/`[^`\n]*`/g, '').matchAll(/\]\((?!https?:|mailto:|#)([^)\s]+)\)/g)) {
        const path = resolve(dirname(fromRoot(page)), target!.split('#')[0]!);
        if (relative(fromRoot('.'), path).startsWith('..') || !existsSync(path)) outside.push(`${page}: ${target}`);
      }
      for (const [path] of text.matchAll(/(?<![\w.])\.\.\/[\w./-]+/g)) outside.push(`${page}: ${path}`);
    }
    expect(outside).toEqual([]);
  });

  it("start with a quickstart that sets every variable it uses from what npm start writes", () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const block = /Try it once `npm start`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const lines = block!.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      expect.stringMatching(/^KEY=\$\(cat "\$\{DATA_DIR:-\.data\}\/demo-api-key"\)/),
      expect.stringMatching(/^CONSOLE_TOKEN=\$\{CONSOLE_TOKEN:-\$\(cat "\$\{DATA_DIR:-\.data\}\/console-token"\)\}/),
      expect.stringMatching(/^BASE=http:\/\/127\.0\.0\.1:\$\{PORT:-3000\}/),
    ]);
    const set = new Set([...block!.matchAll(/^\s*([A-Z_]+)=/gm)].map((m) => m[1]));
    const used = new Set([...block!.matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1]));
    // PORT and DATA_DIR are npm start's own settings, read with its defaults.
    const unset = [...used].filter((name) => !set.has(name) && name !== 'PORT' && name !== 'DATA_DIR');
    expect(unset).toEqual([]);
    expect(block).not.toMatch(/127\.0\.0\.1:3000/);
    expect(block).not.toMatch(/^open /m);
  });
});
