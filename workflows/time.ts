/**
 * Workflow time as ISO text. In workflow code `Date.now()` is the time of the current
 * workflow task, recorded in history, so a replay computes the same value; activities get
 * their times from here instead of reading a clock per attempt.
 */
export function workflowNowIso(): string {
  return new Date(Date.now()).toISOString();
}
