/**
 * Feature hooks run before a composition root installed them (src/main/featureHooks.ts): a
 * wiring bug, said plainly instead of letting statuses land without the reactions other
 * features hooked in (src/messaging/deliveryStatus.ts).
 */
export class FeatureHooksMissing extends Error {
  constructor(what: string) {
    super(`The ${what} hooks were never installed: the process's composition root must call registerFeatureHooks() (src/main/featureHooks.ts) before it serves.`);
    this.name = 'FeatureHooksMissing';
  }
}
