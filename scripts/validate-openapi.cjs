#!/usr/bin/env node
// Validates an OpenAPI document (a file path or an http URL) with swagger-parser.
// Exit 0 when valid; otherwise prints the problems and exits 1.
const { readFileSync } = require('node:fs');
const SwaggerParser = require('@apidevtools/swagger-parser');

async function load(source) {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`${source} answered ${res.status}`);
    return res.json();
  }
  return JSON.parse(readFileSync(source, 'utf8'));
}

const source = process.argv[2] ?? 'http://127.0.0.1:3000/api/v1/openapi.json';
load(source)
  .then((doc) => SwaggerParser.validate(doc))
  .then((api) => console.log(`valid OpenAPI ${api.openapi}: ${Object.keys(api.paths ?? {}).length} paths`))
  .catch((err) => {
    console.error(`invalid: ${err.message}`);
    process.exit(1);
  });
