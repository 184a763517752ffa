import type { CampaignChannel } from './campaign';
import type { ChannelRegistration } from './channelRegistration';
import { voiceChannel } from './voice/channel';
import { whatsappChannel } from './whatsapp/channel';

/**
 * The campaign channels, one line each (src/campaigns/channelRegistration.ts says what a
 * channel provides). Keyed by the stored `channel`, so a channel missing here is a type error.
 */
const CHANNELS: Readonly<Record<CampaignChannel, ChannelRegistration>> = {
  whatsapp: whatsappChannel,
  voice: voiceChannel,
};

/** The registration of a stored campaign's channel; a name no channel registered is a bug, refused loudly. */
export function campaignChannel(channel: CampaignChannel): ChannelRegistration {
  const registered = Object.hasOwn(CHANNELS, channel) ? CHANNELS[channel] : undefined;
  if (!registered) throw new Error(`No campaign channel "${String(channel)}" is registered (src/campaigns/channels.ts).`);
  return registered;
}

/** Every registered channel, in the table's order. */
export const registeredChannels = (): readonly (readonly [CampaignChannel, ChannelRegistration])[] =>
  Object.entries(CHANNELS) as [CampaignChannel, ChannelRegistration][];
