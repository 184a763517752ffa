import type { Db } from 'mongodb';
import { RESERVED_TOOL_NAMES, handOverTool } from '../../../src/agents';
import { builtInToolSource, type BuiltInToolDeps } from '../../../src/agents/builtIns';
import { SEARCH_KNOWLEDGE_TOOL_NAME } from '../../../src/knowledge/searchKnowledgeTool';
import { lineAgent } from '../../../src/media/lineAgent';
import type { CallContext } from '../../../src/media/callContext';

/**
 * The names a workspace may not give an HTTP tool are exactly the built-ins' on both channels:
 * a built-in added without its name here would let a workspace tool silently shadow nothing
 * (the built-in wins) and be refused nowhere.
 */
describe('reserved tool names', () => {
  it('are the names the built-in sources, knowledge search and the line offer', async () => {
    // Listing the built-ins touches none of their dependencies; only running one does.
    const builtIns = await builtInToolSource({ db: {} as Db } as unknown as BuiltInToolDeps)({ tenantId: 'ws_1', agentId: 'bot_1', channel: 'voice' });
    const call = { instructions: 'Be brief.', voice: { voice: 'alloy' }, teamLine: '+919800000000' } as unknown as CallContext;
    const line = lineAgent(call, { endCall: () => undefined, transferToHuman: () => undefined } as never);
    const offered = new Set([handOverTool.name, ...builtIns.map((t) => t.name), SEARCH_KNOWLEDGE_TOOL_NAME, ...line.tools.map((t) => t.name)]);
    expect([...offered].sort()).toEqual([...RESERVED_TOOL_NAMES].sort());
  });
});
