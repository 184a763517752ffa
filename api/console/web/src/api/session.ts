import { ApiFailure, currentCsrfToken, useCsrfToken, type ErrorEnvelope } from './client';

/** The log-in routes live outside /console/v1 (and its document): plain fetch, same origin. */
const SESSION = '/console/session';

interface SessionView {
  csrf_token: string;
  expires_at: string;
}

async function answer(response: Response): Promise<SessionView | null> {
  if (response.status === 204) return null;
  const body = (await response.json().catch(() => null)) as SessionView | ErrorEnvelope | null;
  if (!response.ok) throw new ApiFailure(response.status, body as ErrorEnvelope | null);
  return body as SessionView;
}

/** Whether this browser holds a live session; picks up its CSRF token. */
export async function currentSession(): Promise<boolean> {
  const response = await fetch(SESSION, { credentials: 'same-origin' });
  if (response.status === 401) return false;
  const session = await answer(response);
  useCsrfToken(session!.csrf_token);
  return true;
}

export async function logIn(token: string): Promise<void> {
  const response = await fetch(SESSION, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const session = await answer(response);
  useCsrfToken(session!.csrf_token);
}

export async function logOut(): Promise<void> {
  const csrf = currentCsrfToken();
  await fetch(SESSION, { method: 'DELETE', credentials: 'same-origin', headers: csrf ? { 'X-CSRF-Token': csrf } : {} });
  useCsrfToken(null);
}
