import { TurnContexts, type TurnContext } from '../../../src/agents/turnContexts';

const context = (instructions: string): TurnContext => ({ instructions, history: [{ role: 'user', text: 'Where is my order?' }], turnLines: 1, tools: [], runnable: [] });

describe('a turn’s context kept between its model calls', () => {
  it('is read once per turn, peeked by its tool runs, and read again once dropped', async () => {
    const contexts = new TurnContexts();
    let reads = 0;
    const read = async () => context(`read ${++reads}`);
    expect((await contexts.get('agent-con_1:turn-1-msg_a', read)).instructions).toBe('read 1');
    expect((await contexts.get('agent-con_1:turn-1-msg_a', read)).instructions).toBe('read 1');
    expect((await contexts.peek('agent-con_1:turn-1-msg_a'))?.instructions).toBe('read 1');
    expect((await contexts.get('agent-con_1:turn-2-msg_b', read)).instructions).toBe('read 2');
    contexts.drop('agent-con_1:turn-1-msg_a');
    expect(contexts.peek('agent-con_1:turn-1-msg_a')).toBeUndefined();
    expect((await contexts.get('agent-con_1:turn-1-msg_a', read)).instructions).toBe('read 3');
  });

  it('forgets a failed read, so the step’s retry reads again', async () => {
    const contexts = new TurnContexts();
    await expect(contexts.get('k', async () => Promise.reject(new Error('connection reset')))).rejects.toThrow('connection reset');
    await new Promise((resolve) => setImmediate(resolve));
    expect(contexts.peek('k')).toBeUndefined();
    expect((await contexts.get('k', async () => context('again'))).instructions).toBe('again');
  });
});
