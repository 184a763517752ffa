import request from 'supertest';
import { DEFAULT_AGENT_VOICE } from '../../../src/calls/agentVoice';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

/**
 * An agent's voice settings and a number's team line through the console (issue 26): read,
 * set, back to the defaults, and every refusal with its exact status, code and field.
 */
describe('console: agents’ voice settings and numbers’ team lines', () => {
  const { api } = useTestApi();
  let admin: { Authorization: string };
  let ws: string;
  let other: string;

  const post = (path: string, body: unknown) => request(api.server).post(`/console/v1${path}`).set(admin).send(body as object);
  const patch = (path: string, body: unknown) => request(api.server).patch(`/console/v1${path}`).set(admin).send(body as object);
  const get = (path: string) => request(api.server).get(`/console/v1${path}`).set(admin);
  const invalid = (...errors: { loc: (string | number)[]; msg: string; type: string }[]) => envelope('invalid_argument', 'Request validation failed.', { errors });

  beforeAll(async () => {
    admin = bearer(api.config.CONSOLE_TOKEN!);
    ws = (await post('/workspaces', { name: 'Voice shop', country: 'IN' })).body.workspace_id;
    other = (await post('/workspaces', { name: 'Elsewhere', country: 'IN' })).body.workspace_id;
  });

  describe('agents', () => {
    it('an agent made without settings speaks with the defaults, and says none were set', async () => {
      const res = await post(`/workspaces/${ws}/agents`, { name: 'Plain' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        agent_id: expect.stringMatching(/^bot_/),
        name: 'Plain',
        max_call_minutes: 10,
        voice: DEFAULT_AGENT_VOICE,
        voice_set: [],
        created_at: expect.any(String),
      });
    });

    it('creates with settings, reads them back, changes some, and puts one back to its default with null', async () => {
      const created = await post(`/workspaces/${ws}/agents`, {
        name: 'Collections',
        max_call_minutes: 4,
        voice: { persona: '  the collections assistant of Voice shop ', language: 'HI-in', idle_seconds: 12 },
      });
      expect(created.status).toBe(201);
      const id: string = created.body.agent_id;
      expect(created.body.voice).toEqual({ ...DEFAULT_AGENT_VOICE, persona: 'the collections assistant of Voice shop', language: 'hi-IN', idle_seconds: 12 });
      expect(created.body.voice_set).toEqual(['persona', 'language', 'idle_seconds']);

      const read = await get(`/workspaces/${ws}/agents/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);

      const changed = await patch(`/workspaces/${ws}/agents/${id}`, {
        name: 'Collections (Hindi)',
        voice: { greeting: 'Namaste! Voice shop se bol rahe hain.', instructions: 'Speak Hindi.\nBe brief.', language: null },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ name: 'Collections (Hindi)', max_call_minutes: 4 });
      expect(changed.body.voice).toEqual({
        ...DEFAULT_AGENT_VOICE,
        persona: 'the collections assistant of Voice shop',
        idle_seconds: 12,
        greeting: 'Namaste! Voice shop se bol rahe hain.',
        instructions: 'Speak Hindi.\nBe brief.',
      });
      expect(changed.body.voice_set).toEqual(['persona', 'instructions', 'greeting', 'idle_seconds']);
      expect((await get(`/workspaces/${ws}/agents`)).body.items).toContainEqual(changed.body);

      // Nothing to change: the agent as it is.
      const same = await patch(`/workspaces/${ws}/agents/${id}`, {});
      expect(same.status).toBe(200);
      expect(same.body).toEqual(changed.body);
    });

    it('refuses bad settings with 400 at the field, and changes nothing', async () => {
      const id: string = (await post(`/workspaces/${ws}/agents`, { name: 'Strict', voice: { greeting: 'Hi!' } })).body.agent_id;
      const cases: [unknown, ReturnType<typeof invalid>][] = [
        [{ voice: { language: 'english' } }, invalid({ loc: ['body', 'voice', 'language'], msg: 'expected a BCP 47 language tag, e.g. en, hi-IN or ta', type: 'custom' })],
        [{ voice: { idle_seconds: 4 } }, invalid({ loc: ['body', 'voice', 'idle_seconds'], msg: 'Too small: expected number to be >=5', type: 'too_small' })],
        [{ voice: { idle_seconds: 301 } }, invalid({ loc: ['body', 'voice', 'idle_seconds'], msg: 'Too big: expected number to be <=300', type: 'too_big' })],
        [{ voice: { persona: 'p'.repeat(301) } }, invalid({ loc: ['body', 'voice', 'persona'], msg: 'Too big: expected string to have <=300 characters', type: 'too_big' })],
        [{ voice: { greeting: '   ' } }, invalid({ loc: ['body', 'voice', 'greeting'], msg: 'Too small: expected string to have >=1 characters', type: 'too_small' })],
        [{ voice: { greeting: 'Hi\u0000' } }, invalid({ loc: ['body', 'voice', 'greeting'], msg: 'must not hold control characters', type: 'custom' })],
        [{ voice: { voice: 'my voice' } }, invalid({ loc: ['body', 'voice', 'voice'], msg: 'expected a voice name: letters, digits, _ . or -, e.g. alloy', type: 'invalid_format' })],
        [{ voice: { tone: 'warm' } }, invalid({ loc: ['body', 'voice'], msg: 'Unrecognized key: "tone"', type: 'unrecognized_keys' })],
        [{ max_call_minutes: 0 }, invalid({ loc: ['body', 'max_call_minutes'], msg: 'Too small: expected number to be >=1', type: 'too_small' })],
      ];
      for (const [body, expected] of cases) {
        const res = await patch(`/workspaces/${ws}/agents/${id}`, body);
        expect({ body, status: res.status, answer: res.body }).toEqual({ body, status: 400, answer: expected });
      }
      const created = await post(`/workspaces/${ws}/agents`, { name: 'Bad', voice: { language: 'en_US' } });
      expect(created.status).toBe(400);
      expect(created.body).toEqual(invalid({ loc: ['body', 'voice', 'language'], msg: 'expected a BCP 47 language tag, e.g. en, hi-IN or ta', type: 'custom' }));
      const read = await get(`/workspaces/${ws}/agents/${id}`);
      expect(read.body.voice).toEqual({ ...DEFAULT_AGENT_VOICE, greeting: 'Hi!' });
      expect(read.body.voice_set).toEqual(['greeting']);
    });

    it('another workspace’s agent, an unknown one and an id too long to be one are 404', async () => {
      const id: string = (await post(`/workspaces/${ws}/agents`, { name: 'Mine' })).body.agent_id;
      for (const path of [`/workspaces/${other}/agents/${id}`, `/workspaces/${ws}/agents/bot_nope`, `/workspaces/${ws}/agents/${'x'.repeat(65)}`]) {
        for (const res of [await get(path), await patch(path, { voice: { greeting: 'Hello' } })]) {
          expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: envelope('not_found', 'Agent not found in this workspace.') });
        }
      }
      expect((await get(`/workspaces/${ws}/agents/${id}`)).body.voice.greeting).toBe(DEFAULT_AGENT_VOICE.greeting);
    });
  });

  describe('numbers', () => {
    it('a team line is read by the phone rule in the workspace’s country, stored in E.164, listed, and cleared with null', async () => {
      const created = await post(`/workspaces/${ws}/numbers`, { number: '+912240005555', team_line: '022 4000 6666' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ number: '+912240005555', agent_id: null, active: true, recording: false, team_line: '+912240006666', created_at: expect.any(String) });
      const plain = await post(`/workspaces/${ws}/numbers`, { number: '+912240005556' });
      expect(plain.body.team_line).toBeNull();

      const moved = await patch(`/workspaces/${ws}/numbers/912240005556`, { team_line: '+971 4 123 4567' });
      expect(moved.status).toBe(200);
      expect(moved.body.team_line).toBe('+97141234567');
      const listed = (await get(`/workspaces/${ws}/numbers`)).body.items;
      expect(listed.filter((n: { number: string }) => n.number.startsWith('+91224000555')).map((n: { team_line: string | null }) => n.team_line)).toEqual([
        '+912240006666',
        '+97141234567',
      ]);
      const cleared = await patch(`/workspaces/${ws}/numbers/912240005556`, { team_line: null });
      expect(cleared.body.team_line).toBeNull();
      // Another change leaves the team line as it is.
      const other = await patch(`/workspaces/${ws}/numbers/912240005555`, { recording: true });
      expect(other.body).toMatchObject({ recording: true, team_line: '+912240006666' });
    });

    it('refuses a team line that is no usable number, or is the number itself: 400 at body.team_line, nothing stored', async () => {
      await post(`/workspaces/${ws}/numbers`, { number: '+912240007777', team_line: '+912240008888' });
      const unusable = invalid({
        loc: ['body', 'team_line'],
        msg: "That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (IN).",
        type: 'phone_invalid',
      });
      for (const team_line of ['12', 'call the desk', '+91 22 4000 8888 ext. 4', '+91224000\u00008888']) {
        const res = await patch(`/workspaces/${ws}/numbers/912240007777`, { team_line });
        expect({ team_line, status: res.status, body: res.body }).toEqual({ team_line, status: 400, body: unusable });
      }
      const self = invalid({ loc: ['body', 'team_line'], msg: 'The team line must be another number than the one the agent answers.', type: 'team_line_self' });
      const selfPatch = await patch(`/workspaces/${ws}/numbers/+912240007777`, { team_line: '022 4000 7777' });
      expect([selfPatch.status, selfPatch.body]).toEqual([400, self]);
      const selfCreate = await post(`/workspaces/${ws}/numbers`, { number: '+912240009999', team_line: '+912240009999' });
      expect([selfCreate.status, selfCreate.body]).toEqual([400, self]);
      const tooLong = await patch(`/workspaces/${ws}/numbers/912240007777`, { team_line: '1'.repeat(33) });
      expect(tooLong.body).toEqual(invalid({ loc: ['body', 'team_line'], msg: 'Too big: expected string to have <=32 characters', type: 'too_big' }));

      const listed = (await get(`/workspaces/${ws}/numbers`)).body.items;
      expect(listed.find((n: { number: string }) => n.number === '+912240007777').team_line).toBe('+912240008888');
      expect(listed.find((n: { number: string }) => n.number === '+912240009999')).toBeUndefined();
    });

    it('another workspace’s number is 404, even with a team line', async () => {
      await post(`/workspaces/${ws}/numbers`, { number: '+912240001212' });
      const res = await patch(`/workspaces/${other}/numbers/912240001212`, { team_line: '+912240001313' });
      expect([res.status, res.body]).toEqual([404, envelope('not_found', 'Number not found in this workspace.')]);
    });
  });

  it('the console’s OpenAPI document describes the agent and number answers', async () => {
    const doc = (await get('/openapi.json')).body;
    const schemaOf = (path: string, method: string, status: string) => doc.paths[`/console/v1${path}`][method].responses[status].content['application/json'].schema;
    const agent = schemaOf('/workspaces/{workspace_id}/agents/{agent_id}', 'get', '200');
    expect(Object.keys(agent.properties)).toEqual(['agent_id', 'name', 'max_call_minutes', 'voice', 'voice_set', 'created_at']);
    expect(Object.keys(agent.properties.voice.properties)).toEqual(['persona', 'instructions', 'voice', 'language', 'greeting', 'idle_seconds']);
    expect(schemaOf('/workspaces/{workspace_id}/agents/{agent_id}', 'patch', '200')).toEqual(agent);
    expect(schemaOf('/workspaces/{workspace_id}/numbers/{number}', 'patch', '200').properties.team_line).toBeDefined();
    const body = doc.paths['/console/v1/workspaces/{workspace_id}/agents/{agent_id}'].patch.requestBody.content['application/json'].schema;
    expect(body.properties.voice.properties.idle_seconds).toEqual({ anyOf: [{ type: 'integer', minimum: 5, maximum: 300 }, { type: 'null' }] });
  });
});
