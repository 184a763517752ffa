import { recipientTimeZone } from '../../../src/campaigns/voice/recipientZone';

/** A person's zone for `schedule.recipient_time_zone`: their number's country, else the campaign's zone. */
describe('recipientTimeZone', () => {
  it('takes the zone of a country with one clock, whatever the campaign’s zone', () => {
    expect(recipientTimeZone('+919812345678', 'UTC')).toBe('Asia/Kolkata');
    expect(recipientTimeZone('+442071234567', 'Asia/Kolkata')).toBe('Europe/London');
    expect(recipientTimeZone('+971501234567', 'Europe/London')).toBe('Asia/Dubai');
    expect(recipientTimeZone('+81312345678', 'UTC')).toBe('Asia/Tokyo');
  });

  it('counts zones that always read the same clock as one (Germany: Berlin and Büsingen’s Zurich)', () => {
    expect(recipientTimeZone('+4915123456789', 'Asia/Kolkata')).toBe('Europe/Berlin');
  });

  it('takes the campaign’s zone for a country of several clocks', () => {
    expect(recipientTimeZone('+12025550123', 'Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(recipientTimeZone('+5511987654321', 'UTC')).toBe('UTC');
    expect(recipientTimeZone('+61412345678', 'Europe/London')).toBe('Europe/London');
    // Spain: the Canaries are an hour behind the mainland.
    expect(recipientTimeZone('+34612345678', 'America/New_York')).toBe('America/New_York');
  });

  it('keeps the campaign’s zone when it is one of the country’s', () => {
    expect(recipientTimeZone('+12025550123', 'America/Chicago')).toBe('America/Chicago');
  });

  it('takes the campaign’s zone for a number of no known country', () => {
    expect(recipientTimeZone('+80012345678', 'Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(recipientTimeZone('not a number', 'Europe/Paris')).toBe('Europe/Paris');
  });
});
