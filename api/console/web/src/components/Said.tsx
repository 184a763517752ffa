import { say, type CodeKind } from '../vocabulary';

/**
 * A code as words, the code itself kept in the tooltip and in `data-code` (what tests and
 * support read): "Agent ended the call" over `agent_hangup`.
 */
export function Said({ kind, code, testId }: { kind: CodeKind; code: string | null | undefined; testId?: string }) {
  if (!code) return <span data-testid={testId}>—</span>;
  return (
    <span title={code} data-code={code} data-testid={testId}>
      {say(kind, code)}
    </span>
  );
}
