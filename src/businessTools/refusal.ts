import { Refusal } from '../domain/refusal';

/**
 * Why a console change to a business tool was refused. `api/refusals.ts` gives each its code:
 * a declaration that cannot be used is 400, a name in use or a full workspace 409.
 */
export type BusinessToolRefusalReason =
  | 'tool_name_reserved'
  | 'tool_name_taken'
  | 'tool_limit_reached'
  | 'invalid_parameters_schema'
  | 'tool_url_private'
  | 'tool_url_unresolvable';

export class BusinessToolRefusal extends Refusal<BusinessToolRefusalReason> {
  override readonly name = 'BusinessToolRefusal';
}
