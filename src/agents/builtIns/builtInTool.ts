import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { z } from 'zod';
import { collections, type WorkspaceDoc } from '../../db/collections';
import type { EventPublisher } from '../../events';
import type { PaymentLinkProvider } from '../../dues';
import type { WhatsAppProvider } from '../../messaging';
import type { Logger } from '../../observability/logger';
import type { TriageProvider } from '../../tickets';
import type { AgentTool, AgentToolContext, AgentToolResult, ToolParameters, TrailEntry } from '../agentTool';

/** What the built-in tools act through: the processes' own providers, handed in by the composition roots. */
export interface BuiltInToolDeps {
  db: Db;
  events: EventPublisher;
  /** Starts a call-back's workflow. */
  temporal: Client;
  taskQueue: string;
  /** The deployment's WhatsApp provider (payment links, follow-ups), as POST /messages sends. */
  whatsapp: WhatsAppProvider;
  /** Channels this deployment offers (DEPLOYMENT_CHANNELS). */
  deploymentChannels: readonly string[];
  /** The dues app's payment links (PAYMENT_LINK_PROVIDER). */
  payments: PaymentLinkProvider;
  /** Triage notes for the tickets an agent opens, as POST /tickets attaches them. */
  triage: TriageProvider;
  logger: Logger;
}

/** What a tool's body answers; the wrapper adds the latency. */
export interface ToolAnswer {
  ok: boolean;
  output: unknown;
  trail: TrailEntry;
}

export function failed(words: string, trail: TrailEntry): ToolAnswer {
  return { ok: false, output: { error: words }, trail };
}

export interface BuiltInToolDefinition<Args> {
  name: string;
  description: string;
  parameters: ToolParameters;
  args: z.ZodType<Args>;
  /** `lookup` for reads, `tool` for actions: the kind of its trail rows. */
  kind: TrailEntry['kind'];
  run(deps: BuiltInToolDeps, context: AgentToolContext & { workspace: WorkspaceDoc }, args: Args): Promise<ToolAnswer>;
}

/**
 * One built-in tool as the port's `AgentTool`: arguments checked against its schema, the
 * workspace read (a context naming another workspace's id finds nothing of this one), and
 * every failure, its own or the database's, answered as `ok: false` in words the agent can
 * say, with a trail row: a tool never leaves a turn stuck.
 */
export function builtInTool<Args>(deps: BuiltInToolDeps, definition: BuiltInToolDefinition<Args>): AgentTool {
  const { name, description, parameters, kind } = definition;
  return {
    name,
    description,
    parameters,
    async run(context, args) {
      const started = Date.now();
      const done = (answer: ToolAnswer): AgentToolResult => ({ ...answer, latencyMs: Date.now() - started });
      const parsed = definition.args.safeParse(args ?? {});
      if (!parsed.success) {
        const problem = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
        return done(failed(`The ${name} arguments were not understood (${problem}).`, { kind, text: `${name} refused its arguments: ${problem}` }));
      }
      try {
        const workspace = await collections(deps.db).workspaces.findOne({ _id: context.tenantId });
        if (!workspace) return done(failed('This workspace is not available.', { kind, text: `${name}: workspace ${context.tenantId} not found` }));
        return done(await definition.run(deps, { ...context, workspace }, parsed.data));
      } catch (err) {
        deps.logger.warn({ err, tool: name, tenantId: context.tenantId, runKey: context.runKey }, 'a built-in agent tool failed');
        return done(failed(`${name} is not working right now; please try again later.`, { kind, text: `${name} failed: ${err instanceof Error ? err.message : String(err)}` }));
      }
    },
  };
}

/** The person the agent talks to, or the words for why a tool needing them cannot act. */
export function customerOf(context: AgentToolContext, name: string, kind: TrailEntry['kind']): { phone: string } | ToolAnswer {
  if (context.customerPhone) return { phone: context.customerPhone };
  return failed("I don't have this person's phone number.", { kind, text: `${name}: no customer phone on this ${context.channel === 'voice' ? 'call' : 'conversation'}` });
}
