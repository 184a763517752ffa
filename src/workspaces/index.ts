/** What other features use of workspaces: the plan lease, time zones. */
export { withPlanLease } from './planLease';
export { isTimeZone } from './workspaces';
