import { useState } from 'preact/hooks';
import { logIn } from '../api/session';
import { ErrorNote } from '../components/common';
import { useAction } from '../hooks';

/** The console token is sent once, to POST /console/session; the page keeps nothing of it. */
export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [token, setToken] = useState('');
  const action = useAction();
  return (
    <main class="login">
      <h1>Orchestrator console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            await logIn(token);
            setToken('');
            onLoggedIn();
          });
        }}
      >
        <label for="token">Console token</label>
        <input id="token" name="token" type="password" autoComplete="current-password" required value={token} onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={action.busy}>
          Log in
        </button>
        <ErrorNote error={action.error} />
      </form>
    </main>
  );
}
