import { registerFeatureHooks } from '../../src/main/featureHooks';

// A test file is a composition root too: the features' hooks are registered as the API and
// the worker processes register them (src/main/featureHooks.ts).
registerFeatureHooks();
