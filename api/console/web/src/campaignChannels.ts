import type { Campaign } from './api/types';

/**
 * What the console shows differently per campaign channel, in one table (the server's own
 * registry is src/campaigns/channels.ts): the pages read these facts instead of comparing the
 * channel's name. A new channel is a line here beside its registration there.
 */
export interface ChannelFacts {
  /** The create form's choice. */
  choice: string;
  /** The create form asks for an agent, purpose, script and questions (else a template and sender). */
  callsPeople: boolean;
  /** Completes "Everyone not yet …". */
  done: string;
  chartLabel: string;
  /** The create form's schedule hint: the hours the channel is held to. */
  windowHint: string;
  throttleLabel: string;
}

export const CHANNEL_FACTS: Record<Campaign['channel'], ChannelFacts> = {
  whatsapp: {
    choice: 'WhatsApp message',
    callsPeople: false,
    done: 'sent to',
    chartLabel: 'Messages over the run',
    windowHint: 'Messages go out between 09:00 and 21:00 at most.',
    throttleLabel: 'Messages a minute',
  },
  voice: {
    choice: 'AI phone call',
    callsPeople: true,
    done: 'called',
    chartLabel: 'People by call state over the run',
    windowHint: 'Calls are held to 10:00 to 19:00 whatever is set.',
    throttleLabel: 'Calls a minute',
  },
};

/** The channels in the create form's order. */
export const CHANNEL_CHOICES = Object.entries(CHANNEL_FACTS) as [Campaign['channel'], ChannelFacts][];
