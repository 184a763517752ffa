import type { Campaign } from './api/types';

/**
 * What the console shows differently per campaign channel, in one table (the server's own
 * registry is src/campaigns/channels.ts): the pages read these facts instead of comparing the
 * channel's name. A new channel is a line here beside its registration there.
 */
export interface ChannelFacts {
  /** The create form's choice. */
  choice: string;
  /** The campaign list's heading over this channel's table. */
  listTitle: string;
  /** The create form asks for an agent, purpose, script and questions (else a template and sender). */
  callsPeople: boolean;
  /** What one send is: "The chart starts when the first … goes". */
  unit: string;
  /** Completes "Everyone not yet …". */
  done: string;
  chartLabel: string;
  /** The create form's schedule hint: the hours the channel is held to. */
  windowHint: string;
  throttleLabel: string;
  /** The campaign list's progress columns: the channel's own counters (a call campaign's `sent` counts the people dialled). */
  listColumns: readonly { label: string; counter: 'sent' | 'delivered' | 'read' | 'failed' | 'skipped' }[];
}

export const CHANNEL_FACTS: Record<Campaign['channel'], ChannelFacts> = {
  whatsapp: {
    choice: 'WhatsApp message',
    listTitle: 'WhatsApp campaigns',
    callsPeople: false,
    unit: 'message',
    done: 'sent to',
    chartLabel: 'Messages over the run',
    windowHint: 'Messages go out between 09:00 and 21:00 at most.',
    throttleLabel: 'Messages a minute',
    listColumns: [
      { label: 'Sent', counter: 'sent' },
      { label: 'Delivered', counter: 'delivered' },
      { label: 'Read', counter: 'read' },
      { label: 'Failed', counter: 'failed' },
      { label: 'Skipped', counter: 'skipped' },
    ],
  },
  voice: {
    choice: 'AI phone call',
    listTitle: 'Call campaigns',
    callsPeople: true,
    unit: 'call',
    done: 'called',
    chartLabel: 'People by call state over the run',
    windowHint: 'Calls are held to 10:00 to 19:00 whatever is set.',
    throttleLabel: 'Calls a minute',
    listColumns: [
      { label: 'Dialled', counter: 'sent' },
      { label: 'Failed', counter: 'failed' },
      { label: 'Skipped', counter: 'skipped' },
    ],
  },
};

/** The channels in the create form's order. */
export const CHANNEL_CHOICES = Object.entries(CHANNEL_FACTS) as [Campaign['channel'], ChannelFacts][];
