import { METHODS } from 'node:http';

/**
 * Every method Node's parser accepts counts as implemented, so a method no route has
 * (TRACE, QUERY, PROPFIND, …) on a known path is 405 with `Allow`, as DELETE is, instead of
 * the router's 501 for methods outside its short default list.
 */
export const ROUTER_METHODS: string[] = [...METHODS];
