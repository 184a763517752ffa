import { runConsole } from '../cli/console';

/** `npm run console` (scripts/console.sh runs dist/src/main/console.js): the console CLI in src/cli/, a client of the console HTTP API. */
runConsole(process.argv.slice(2));
