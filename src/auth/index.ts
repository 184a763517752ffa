/** What other features use of auth: making an API key (the demo workspace's seed), forgetting cached credentials after a workspace change. */
export { generateApiKey, hashApiKey, type KeyEnvironment, keyRefusal } from './apiKeys';
export { credentialsChanged } from './credentialCache';
