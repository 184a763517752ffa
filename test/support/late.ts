/**
 * A stand-in for a value a `beforeAll` hook creates: the fixture returns it at once (so a test
 * file writes `const { api, ws } = useTestApi()` at its top), and every property read forwards to
 * the value once it is set. Reading before the hook ran is a mistake in the test and throws.
 */
export function lateBound<T extends object>(what: string): { value: T; set(value: T | undefined): void } {
  let current: T | undefined;
  const target = (): T => {
    if (!current) throw new Error(`${what} is used before its beforeAll hook set it up (or after its afterAll)`);
    return current;
  };
  const value = new Proxy({} as T, {
    get(_, prop) {
      const real = target();
      const found: unknown = Reflect.get(real, prop, real);
      return typeof found === 'function' ? (found as (...args: unknown[]) => unknown).bind(real) : found;
    },
    set(_, prop, next) {
      return Reflect.set(target(), prop, next);
    },
    has: (_, prop) => Reflect.has(target(), prop),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, prop) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), prop);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return {
    value,
    set(next) {
      current = next;
    },
  };
}
