// Lets a child `node` process run the project's TypeScript sources as they are (the same
// swc transform jest uses), so a test can start and kill a real worker process:
//   node -r ./test/support/registerTs.cjs src/main/worker.ts
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = function compileTs(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
