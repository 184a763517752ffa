import { CAMPAIGN_CHANNELS, type CampaignChannel } from '../../../src/campaigns/campaign';
import { campaignChannel, registeredChannels } from '../../../src/campaigns/channels';
import { voiceChannel } from '../../../src/campaigns/voice/channel';
import { whatsappChannel } from '../../../src/campaigns/whatsapp/channel';
import { CALL_BOUNDS, MESSAGE_BOUNDS } from '../../../src/domain/sendWindow';
import { workspace } from './fixtures';

// The channel registry (src/campaigns/channels.ts): each stored channel is registered by its
// folder's entry, and a name nobody registered is refused rather than run as another channel.
describe('campaign channel registry', () => {
  it('registers every stored channel, each by its own folder', () => {
    expect(registeredChannels().map(([name]) => name)).toEqual([...CAMPAIGN_CHANNELS]);
    expect(campaignChannel('whatsapp')).toBe(whatsappChannel);
    expect(campaignChannel('voice')).toBe(voiceChannel);
  });

  it('gives each channel its stored type, window bounds and own fields', () => {
    expect(campaignChannel('whatsapp')).toMatchObject({ type: 'whatsapp_broadcast', label: 'WhatsApp', windowBounds: MESSAGE_BOUNDS, ownFields: ['template', 'sender_id'] });
    expect(campaignChannel('voice')).toMatchObject({
      type: 'voice_batch',
      label: 'voice',
      windowBounds: CALL_BOUNDS,
      ownFields: ['agent_id', 'purpose', 'script', 'capture', 'call_back_incomplete', 'schedule.recipient_time_zone'],
    });
  });

  it('owns no field twice: a field sent to the wrong channel names one owner', () => {
    const owners = registeredChannels().flatMap(([name, c]) => c.ownFields.map((f) => [f, name] as const));
    expect(new Set(owners.map(([f]) => f)).size).toBe(owners.length);
  });

  it('asks each channel its own plan feature and allowance', () => {
    const ws = workspace();
    expect(campaignChannel('whatsapp').planIncludes({ ...ws.plan, chat_channel: false })).toBe(false);
    expect(campaignChannel('whatsapp').planIncludes({ ...ws.plan, phone_numbers: false })).toBe(ws.plan.chat_channel);
    expect(campaignChannel('voice').planIncludes({ ...ws.plan, phone_numbers: false })).toBe(false);
    expect(campaignChannel('voice').ownSchedule({ recipient_time_zone: true })).toEqual({ recipient_time_zone: true });
    expect(campaignChannel('whatsapp').ownSchedule({ recipient_time_zone: true })).toEqual({});
  });

  it('refuses a channel nobody registered', () => {
    expect(() => campaignChannel('sms' as CampaignChannel)).toThrow('No campaign channel "sms" is registered (src/campaigns/channels.ts).');
    // Not an inherited property mistaken for a channel either.
    expect(() => campaignChannel('toString' as CampaignChannel)).toThrow('No campaign channel "toString" is registered');
  });
});
