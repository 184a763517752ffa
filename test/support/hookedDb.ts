import type { Db } from 'mongodb';

/** One collection call as a hook sees it; `run` makes it. */
export interface CollectionCall {
  collection: string;
  method: string;
  args: unknown[];
  run: () => Promise<unknown>;
}

/**
 * The database with `hook` around every call of `methods` (promise-returning ones: findOne,
 * insertOne, updateOne…), so a test can make one party fail, or wait for another, at an exact
 * step of its real code. Every other call goes straight through.
 */
export function hookedDb(db: Db, methods: readonly string[], hook: (call: CollectionCall) => Promise<unknown>): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop !== 'collection') return Reflect.get(target, prop) as unknown;
      return (name: string) => {
        const collection = target.collection(name);
        return new Proxy(collection, {
          get(c, p) {
            const value = Reflect.get(c, p) as unknown;
            if (typeof value !== 'function') return value;
            const bound = (value as (...args: unknown[]) => unknown).bind(c);
            if (typeof p !== 'string' || !methods.includes(p)) return bound;
            return (...args: unknown[]) => hook({ collection: name, method: p, args, run: () => bound(...args) as Promise<unknown> });
          },
        });
      };
    },
  });
}
