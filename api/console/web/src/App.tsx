import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, whenSessionEnds } from './api/client';
import { currentSession, logOut } from './api/session';
import { WorkspaceZone } from './clock';
import { Loading, Options } from './components/common';
import { usePoll } from './hooks';
import { AgentsPage } from './pages/Agents';
import { InboxPage } from './pages/Inbox';
import { CallPage, CallsPage } from './pages/Calls';
import { CampaignPage } from './pages/Campaign';
import { CampaignsPage } from './pages/Campaigns';
import { ConversationPage, ConversationsPage } from './pages/Conversations';
import { DuesPage } from './pages/Dues';
import { EditCampaignPage } from './pages/EditCampaign';
import { NewCampaignPage } from './pages/NewCampaign';
import { OverviewPage } from './pages/Overview';
import { NewSubscriberPage } from './pages/NewSubscriber';
import { TicketsPage } from './pages/Tickets';
import { ToolsPage } from './pages/Tools';
import { KeysPage } from './pages/Keys';
import { KnowledgePage } from './pages/Knowledge';
import { ListPage, ListsPage } from './pages/Lists';
import { LoginPage } from './pages/Login';
import { WebhooksPage } from './pages/Webhooks';
import { WorkspacesPage } from './pages/Workspaces';
import { Link, navigate, usePath } from './router';

export function App() {
  const [loggedIn, setLoggedIn] = useState<boolean | null>(null);
  useEffect(() => {
    whenSessionEnds(() => setLoggedIn(false));
    currentSession().then(setLoggedIn, () => setLoggedIn(false));
  }, []);
  if (loggedIn === null) return <Loading what="the console" />;
  if (!loggedIn) return <LoginPage onLoggedIn={() => setLoggedIn(true)} />;
  return <Shell onLoggedOut={() => setLoggedIn(false)} />;
}

const SECTIONS = [
  ['overview', 'Overview'],
  ['campaigns', 'Campaigns'],
  ['lists', 'Lists'],
  ['calls', 'Calls'],
  ['agents', 'Agents and numbers'],
  ['conversations', 'Conversations'],
  ['inbox', 'Inbox'],
  ['knowledge', 'Knowledge'],
  ['tools', 'Agent tools'],
  ['tickets', 'Tickets'],
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['dues', 'Dues'],
] as const;

function Shell({ onLoggedOut }: { onLoggedOut: () => void }) {
  const path = usePath();
  const workspaces = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces'))).items, 30_000, []);
  const match = /^\/w\/([^/]+)\/([^/]+)(?:\/([^/]+))?/.exec(path);
  const workspaceId = match?.[1];
  const section = match?.[2];
  const id = match?.[3] ? decodeURIComponent(match[3]) : undefined;
  // One clock: every time on a workspace's pages is in its zone, named once here (clock.ts).
  const zone = workspaceId ? workspaces.data?.find((w) => w.workspace_id === workspaceId)?.timezone : undefined;

  useEffect(() => {
    if (path === '/' && workspaces.data) navigate(workspaces.data[0] ? `/w/${workspaces.data[0].workspace_id}/overview` : '/workspaces');
  }, [path, workspaces.data]);
  // On a phone the sections and the workspace picker fold behind Menu (styles.css); a new page folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);

  return (
    <div class={menuOpen ? 'shell menu-open' : 'shell'}>
      <header>
        <p class="brand">Orchestrator console</p>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="sections header-tools" onClick={() => setMenuOpen(!menuOpen)}>
          {menuOpen ? 'Close menu' : 'Menu'}
        </button>
        <div class="header-tools" id="header-tools">
          <label>
            Workspace{' '}
            <select
              value={workspaceId ?? ''}
              onChange={(e) => navigate(`/w/${(e.currentTarget as HTMLSelectElement).value}/${section ?? 'overview'}`)}
            >
              <option value="" disabled>
                Choose…
              </option>
              <Options of={(workspaces.data ?? []).map((w) => [w.workspace_id, `${w.name} (${w.workspace_id})`])} />
            </select>
          </label>
          <button type="button" onClick={() => void logOut().then(onLoggedOut)}>
            Log out
          </button>
        </div>
      </header>
      <nav aria-label="Sections" id="sections">
        <ul>
          <li>
            <Link to="/workspaces" current={path === '/workspaces'}>
              Workspaces
            </Link>
          </li>
          {workspaceId
            ? SECTIONS.map(([slug, name]) => (
                <li key={slug}>
                  <Link to={`/w/${workspaceId}/${slug}`} current={section === slug}>
                    {name}
                  </Link>
                </li>
              ))
            : null}
        </ul>
      </nav>
      <main>
        {zone ? (
          <p class="clock-note" data-testid="clock-note">
            Times in {zone}, the workspace's time zone.
          </p>
        ) : null}
        <WorkspaceZone.Provider value={zone ?? 'UTC'}>{page(path, workspaceId, section, id, () => void workspaces.reload())}</WorkspaceZone.Provider>
      </main>
    </div>
  );
}

function page(path: string, ws: string | undefined, section: string | undefined, id: string | undefined, workspacesChanged: () => void) {
  if (path === '/workspaces') return <WorkspacesPage onChanged={workspacesChanged} />;
  if (!ws) return <Loading what="workspaces" />;
  switch (section) {
    case 'overview':
      return <OverviewPage ws={ws} />;
    case 'campaigns':
      if (id === 'new') return <NewCampaignPage ws={ws} />;
      if (id && path.endsWith(`/${encodeURIComponent(id)}/edit`)) return <EditCampaignPage ws={ws} id={id} />;
      return id ? <CampaignPage ws={ws} id={id} /> : <CampaignsPage ws={ws} />;
    case 'lists':
      return id ? <ListPage ws={ws} id={id} /> : <ListsPage ws={ws} />;
    case 'calls':
      return id ? <CallPage ws={ws} id={id} /> : <CallsPage ws={ws} />;
    case 'agents':
      return <AgentsPage ws={ws} />;
    case 'conversations':
      return id ? <ConversationPage ws={ws} id={id} /> : <ConversationsPage ws={ws} />;
    case 'knowledge':
      return <KnowledgePage ws={ws} />;
    case 'tools':
      return <ToolsPage ws={ws} />;
    case 'inbox':
      return <InboxPage ws={ws} />;
    case 'webhooks':
      return <WebhooksPage ws={ws} />;
    case 'keys':
      return <KeysPage ws={ws} />;
    case 'dues':
      return id === 'new' ? <NewSubscriberPage ws={ws} /> : <DuesPage ws={ws} subscriber={id} />;
    case 'tickets':
      return <TicketsPage ws={ws} />;
    default:
      return (
        <p>
          No such page. <Link to={`/w/${ws}/overview`}>Overview</Link>
        </p>
      );
  }
}
