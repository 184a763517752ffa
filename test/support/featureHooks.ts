import { registerFeatureHooks } from '../../src/main/featureHooks';

// A test file is a composition root too: the features' hooks are installed as the API and the
// worker processes install them (src/main/featureHooks.ts); createApp and createWorker refuse
// to start without them.
registerFeatureHooks();
