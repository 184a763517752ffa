/** The worker's workflows path: every workflow the worker hosts is exported here. */
export { systemCheck } from './systemCheck';
