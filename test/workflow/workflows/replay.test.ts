import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import * as workflows from '../../../workflows';
import { testServers } from '../../support/env';
import { historyFromStoredJson } from '../../support/histories';

/**
 * The safety net for changing workflow code: every stored history (test/workflow/histories/,
 * captured from real runs by capture.ts there) replays against the current workflow bundle.
 * A change that would make running workflows take a different path fails here with a
 * determinism error; docs/workflows.md says what to do then (patched(), or re-capture).
 */
const HISTORIES = join(__dirname, '..', 'histories');

interface StoredHistory {
  file: string;
  workflowType: string;
  workflowId: string;
  history: unknown;
}

/** Every stored history, the current set and the sets kept from earlier releases (sub-folders). */
const stored: StoredHistory[] = (readdirSync(HISTORIES, { recursive: true }) as string[])
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')) as Omit<StoredHistory, 'file'>) }));
const current = stored.filter((s) => !s.file.includes('/'));

describe('stored workflow histories', () => {
  it('cover every workflow the worker hosts', () => {
    expect([...new Set(current.map((s) => s.workflowType))].sort()).toEqual(Object.keys(workflows).sort());
  });

  it('each names the workflow type its history started', () => {
    for (const s of stored) {
      const first = (s.history as { events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[] }).events[0];
      expect({ file: s.file, type: first?.workflowExecutionStartedEventAttributes?.workflowType?.name }).toEqual({ file: s.file, type: s.workflowType });
    }
  });

  it('replay against the current workflow code without a determinism error', async () => {
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath: testServers.workflowBundle() }, replayName: 'stored-histories' },
      stored.map((s) => ({ workflowId: s.workflowId, history: historyFromStoredJson(s.history) })),
    );
    const outcomes: { workflowId: string; error: string | null }[] = [];
    for await (const result of results) outcomes.push({ workflowId: result.workflowId, error: result.error ? String(result.error) : null });
    expect(outcomes).toEqual(stored.map((s) => ({ workflowId: s.workflowId, error: null })));
  });
});
