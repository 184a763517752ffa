// Runs test/workflow/histories/capture.ts with the suite's servers and bundle (see its header).
const base = require('../../../jest.config.js');

module.exports = { ...base, rootDir: '../../..', testMatch: ['<rootDir>/test/workflow/histories/capture.ts'] };
