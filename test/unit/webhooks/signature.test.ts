import { Webhook } from 'standardwebhooks';
import { newSigningSecret, signature, signedHeaders } from '../../../src/webhooks/signature';
import { verify, WebhookVerificationError } from '../../../src/webhooks/verify';

const body = Buffer.from('{"id":"evt_0123456789abcdef01234567","type":"ticket.created","created_at":"2025-01-02T03:04:05Z","tenant_id":"ws_1","data":{"ticket_id":"tkt_1","subject":"naïve café"}}');
const id = 'evt_0123456789abcdef01234567';
const now = new Date('2025-01-02T03:04:05Z');
const ts = Math.floor(now.getTime() / 1000);

function failure(fn: () => unknown): WebhookVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err;
    throw err;
  }
  throw new Error('expected verification to fail');
}

describe('webhook signatures', () => {
  const secret = newSigningSecret();

  it('issues whsec_ secrets of 32 random bytes', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('verifies the raw bytes it signed and returns the envelope', () => {
    const headers = signedHeaders([secret], id, ts, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(body, headers, secret, { now: () => now })).toMatchObject({ id, type: 'ticket.created', data: { subject: 'naïve café' } });
    expect(verify(body.toString('utf8'), headers, secret, { now: () => now }).id).toBe(id);
  });

  it('fails when any single byte of the body changes', () => {
    const headers = signedHeaders([secret], id, ts, body);
    for (const index of [0, 40, body.length - 1]) {
      const changed = Buffer.from(body);
      changed[index] = changed[index]! ^ 0x01;
      expect(failure(() => verify(changed, headers, secret, { now: () => now })).reason).toBe('invalid_signature');
    }
  });

  it('fails on a re-serialised body with the same meaning', () => {
    const headers = signedHeaders([secret], id, ts, body);
    const reserialised = JSON.stringify(JSON.parse(body.toString('utf8')), null, 1);
    expect(failure(() => verify(reserialised, headers, secret, { now: () => now })).reason).toBe('invalid_signature');
  });

  it('fails with another secret, another id or another timestamp', () => {
    const headers = signedHeaders([secret], id, ts, body);
    expect(failure(() => verify(body, headers, newSigningSecret(), { now: () => now })).reason).toBe('invalid_signature');
    expect(failure(() => verify(body, { ...headers, 'webhook-id': 'evt_other' }, secret, { now: () => now })).reason).toBe('invalid_signature');
    expect(failure(() => verify(body, { ...headers, 'webhook-timestamp': String(ts + 1) }, secret, { now: () => now })).reason).toBe('invalid_signature');
  });

  it('refuses timestamps outside the tolerance, either way', () => {
    const headers = signedHeaders([secret], id, ts, body);
    expect(verify(body, headers, secret, { now: () => new Date(now.getTime() + 300_000) }).id).toBe(id);
    expect(failure(() => verify(body, headers, secret, { now: () => new Date(now.getTime() + 301_000) })).reason).toBe('timestamp_out_of_tolerance');
    expect(failure(() => verify(body, headers, secret, { now: () => new Date(now.getTime() - 301_000) })).reason).toBe('timestamp_out_of_tolerance');
    expect(verify(body, headers, secret, { now: () => new Date(now.getTime() + 3_600_000), toleranceSeconds: 3600 }).id).toBe(id);
    expect(failure(() => verify(body, { ...headers, 'webhook-timestamp': '12abc' }, secret, { now: () => now })).reason).toBe('invalid_timestamp');
  });

  it('refuses a message missing any of the three headers', () => {
    const headers = signedHeaders([secret], id, ts, body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const rest: Record<string, string> = { ...headers };
      delete rest[name];
      expect(failure(() => verify(body, rest, secret, { now: () => now })).reason).toBe('missing_headers');
    }
  });

  it('accepts any of several signatures (a rotation signs with the new and the old secret)', () => {
    const old = newSigningSecret();
    const headers = signedHeaders([secret, old], id, ts, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(body, headers, secret, { now: () => now }).id).toBe(id);
    expect(verify(body, headers, old, { now: () => now }).id).toBe(id);
  });

  it('reads headers case-insensitively, from Node arrays or a fetch Headers', () => {
    const headers = signedHeaders([secret], id, ts, body);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verify(body, upper, secret, { now: () => now }).id).toBe(id);
    expect(verify(body, new Headers(headers), secret, { now: () => now }).id).toBe(id);
  });

  it('agrees with the Standard Webhooks reference library both ways', () => {
    const reference = new Webhook(secret);
    expect(signature(secret, id, ts, body)).toBe(reference.sign(id, now, body.toString('utf8')));
    const headers = signedHeaders([secret], id, ts, body);
    // The reference verifies against its own clock, so sign for now.
    const fresh = signedHeaders([secret], id, Math.floor(Date.now() / 1000), body);
    expect(reference.verify(body.toString('utf8'), fresh)).toMatchObject({ id });
    const theirs = reference.sign(id, now, body.toString('utf8'));
    expect(verify(body, { ...headers, 'webhook-signature': theirs }, secret, { now: () => now }).id).toBe(id);
  });
});
