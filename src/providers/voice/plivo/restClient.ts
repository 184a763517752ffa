import { Client } from 'plivo';
import { CallInterface } from 'plivo/dist/resources/call';
import { Axios } from 'plivo/dist/rest/axios';
import { camelCaseRequestWrapper } from 'plivo/dist/rest/utils';
import type { PlivoSettings } from './settings';

const PLIVO_API = 'https://api.plivo.com';

/**
 * The Voice API's calls for the account, through the `plivo` package (4.x). Facts found reading
 * the package: its `Client` takes `options.url`, `options.timeout` and `options.proxy`, but every
 * Call request carries an `is_voice_request` flag that sends it to a fixed
 * `https://api.plivo.com/v1/Account/` (with two retries of a 5xx and a 5 s timeout unless
 * `timeout` is given), whatever `url` says; `proxy` tunnels that same https URL through CONNECT,
 * so a fake would have to pass TLS as api.plivo.com; and the axios instance it uses is created
 * per request from the module's global defaults, so it cannot be handed one. On Plivo's own
 * origin the package is used as it is. For another origin (PLIVO_API_BASE_URL: the local fake
 * in tests) the calls interface is the package's own `CallInterface` over the package's own
 * request function given the fake's account URL, with the voice flag dropped so that URL is
 * used: the same parameters, paths, JSON bodies, Basic auth and error classes, without the
 * voice retries (the worker's activity retries instead).
 */
export function createPlivoCalls(settings: Pick<PlivoSettings, 'authId' | 'authToken' | 'apiBaseUrl' | 'timeoutMs'>): CallInterface {
  const origin = settings.apiBaseUrl.replace(/\/$/, '');
  if (origin === PLIVO_API) return new Client(settings.authId, settings.authToken, { timeout: settings.timeoutMs }).calls;
  const request = Axios({
    authId: settings.authId,
    authToken: settings.authToken,
    url: `${origin}/v1/Account/${settings.authId}`,
    timeout: settings.timeoutMs,
    userAgent: 'plivo-node (rerouted)',
  });
  const rerouted = (method: string, action: string, params?: Record<string, unknown>) => {
    if (!params || !('is_voice_request' in params)) return request(method, action, params);
    const { is_voice_request: _voice, ...rest } = params;
    return request(method, action, rest);
  };
  return new CallInterface(camelCaseRequestWrapper(rerouted));
}
