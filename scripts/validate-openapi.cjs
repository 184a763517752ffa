#!/usr/bin/env node
// Validates OpenAPI documents (file paths or http URLs) with swagger-parser.
// With no argument: the public document and the console's of the API on 127.0.0.1:3000.
// The console's document needs the console token: set CONSOLE_TOKEN.
// Exit 0 when every document is valid; otherwise prints the problems and exits 1.
const { readFileSync } = require('node:fs');
const SwaggerParser = require('@apidevtools/swagger-parser');

async function load(source) {
  if (/^https?:\/\//.test(source)) {
    const token = process.env.CONSOLE_TOKEN;
    const headers = /\/console\//.test(source) && token ? { Authorization: `Bearer ${token}` } : {};
    const res = await fetch(source, { headers });
    if (!res.ok) throw new Error(`${source} answered ${res.status}`);
    return res.json();
  }
  return JSON.parse(readFileSync(source, 'utf8'));
}

const sources = process.argv.length > 2
  ? process.argv.slice(2)
  : ['http://127.0.0.1:3000/api/v1/openapi.json', 'http://127.0.0.1:3000/console/v1/openapi.json'];

void (async () => {
  let failed = false;
  for (const source of sources) {
    try {
      const api = await SwaggerParser.validate(await load(source));
      console.log(`valid OpenAPI ${api.openapi}: ${Object.keys(api.paths ?? {}).length} paths`);
    } catch (err) {
      console.error(`invalid: ${source}: ${err.message}`);
      failed = true;
    }
  }
  if (failed) process.exit(1);
})();
