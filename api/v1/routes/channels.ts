import { collections } from '../../../src/db/collections';
import { connectedSenders, effectiveDefault } from '../../../src/messaging/senders';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { channelsResponse } from './channels.schema';

/** Any key may read them. */
const channels = routeGroup({ auth: { scope: null } });

/**
 * What the workspace can send on and call from right now: `whatsapp` when the deployment
 * offers it, the plan includes the chat channel and a sender is connected; the connected
 * senders, with `is_default` on the one a send without `sender_id` uses; `voice` and the
 * active numbers when the deployment offers voice, it is configured and the plan has numbers.
 */
export function channelsRoutes(deps: Pick<PublicDeps, 'db' | 'config'>): RouteDef[] {
  const c = collections(deps.db);
  return [
    channels.get('listChannels', '/api/v1/channels', {
      summary: 'Sendable identities (senders) and callable channels.',
      response: { status: 200, description: 'The workspace’s channels.', schema: channelsResponse },
      handler: async (ctx) => {
        const workspace = ctx.state.workspace!;
        const offered = deps.config.DEPLOYMENT_CHANNELS;
        const [senders, numbers] = await Promise.all([
          connectedSenders(deps.db, workspace._id),
          c.phoneNumbers.find({ tenant_id: workspace._id, active: true }).sort({ created_at: 1, _id: 1 }).toArray(),
        ]);
        const chat = offered.includes('whatsapp') && workspace.plan.chat_channel && senders.length > 0;
        const voice = offered.includes('voice') && workspace.capabilities.voice_configured && workspace.plan.phone_numbers;
        const defaultSender = effectiveDefault(senders);
        return {
          message_channels: chat ? ['whatsapp'] : [],
          call_channels: voice ? ['voice'] : [],
          senders: chat
            ? senders.map((s) => ({ sender_id: s._id, channel: s.channel, phone: s.phone, display_name: s.display_name, is_default: s === defaultSender }))
            : [],
          numbers: voice ? numbers.map((n) => ({ number: n.number, agent_id: n.agent_id })) : [],
        };
      },
    }),
  ];
}
