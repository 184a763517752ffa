import { Refusal } from '../domain/refusal';

/**
 * Why the console would not issue a key: one with no scopes could call nothing, and one of
 * the other environment than the deployment's would be refused (401 `wrong_environment`) on
 * every request. `api/refusals.ts` gives each its code.
 */
export type KeyIssueRefusalReason = 'key_scopes_required' | 'key_environment_not_served';

export class KeyIssueRefusal extends Refusal<KeyIssueRefusalReason> {
  override readonly name = 'KeyIssueRefusal';
}
