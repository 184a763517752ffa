/** What other features use of auth: making an API key (the demo workspace's seed). */
export { generateApiKey, hashApiKey, type KeyEnvironment, keyRefusal } from './apiKeys';
