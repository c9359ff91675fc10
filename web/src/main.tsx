import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useIsAdmin } from './admin';
import { completeSignIn, currentSession, Session, signIn, signOut } from './auth';
import { ErrorNote, messageOf } from './components/error-note';
import { stashConnectionCallback } from './connection-callback';
import { AdminsPage } from './pages/admins';
import { ApprovalsPage } from './pages/approvals';
import { ConnectionCallbackPage } from './pages/connection-callback';
import { CreateKeyPage } from './pages/create-key';
import { KeyDetailPage } from './pages/key-detail';
import { KeysPage } from './pages/keys';
import { ServerConnectPage } from './pages/server-connect';
import { ServersPage } from './pages/servers';
import { UsagePage } from './pages/usage';
import './styles.css';

const NAV = [
  { href: '#/keys', label: 'Keys' },
  { href: '#/usage', label: 'Usage' },
  { href: '#/servers', label: 'MCP servers' },
  { href: '#/approvals', label: 'Approvals' },
  { href: '#/admins', label: 'Admins', adminOnly: true },
];

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/keys');
  useEffect(() => {
    const update = () => setHash(location.hash || '#/keys');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function Page({ hash, admin, me }: { hash: string; admin: boolean | null; me: string }) {
  if (hash === '#/keys/new') return <CreateKeyPage />;
  const detail = /^#\/keys\/([0-9a-f-]{36})$/.exec(hash);
  if (detail) return <KeyDetailPage id={detail[1]} />;
  if (hash === '#/usage') return <UsagePage admin={admin} me={me} />;
  if (hash === '#/servers') return <ServersPage />;
  if (hash === '#/connections/callback') return <ConnectionCallbackPage />;
  const connect = /^#\/servers\/([0-9a-f-]{36})\/connect$/.exec(hash);
  if (connect) return <ServerConnectPage id={connect[1]} />;
  if (hash === '#/approvals') return <ApprovalsPage />;
  const approval = /^#\/approvals\/([0-9a-f-]{36})$/.exec(hash);
  if (approval) return <ApprovalsPage focus={approval[1]} />;
  if (hash === '#/admins')
    return admin ? <AdminsPage /> : <p class="muted">{admin === null ? 'Loading…' : 'Agent roles and modes are managed by admins.'}</p>;
  return <KeysPage />;
}

function SignIn({ error }: { error: string | null }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const start = () => {
    setBusy(true);
    signIn().catch((e) => {
      setBusy(false);
      setFailure(messageOf(e));
    });
  };
  return (
    <main class="sign-in">
      <h1>keygate console</h1>
      <p>Manage your API keys, upstream MCP servers and agent roles.</p>
      <ErrorNote error={failure ?? error} />
      <button type="button" onClick={start} disabled={busy}>
        Sign in
      </button>
    </main>
  );
}

function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [error, setError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const hash = useHash();
  const admin = useIsAdmin(session?.sub ?? '');
  useEffect(() => {
    completeSignIn()
      .then(
        (s) => s && setSession(s),
        (e) => setError(messageOf(e)),
      )
      .finally(() => setReady(true));
  }, []);
  if (!ready)
    return (
      <main>
        <p class="muted">Loading…</p>
      </main>
    );
  if (!session) return <SignIn error={error} />;
  const logout = () => {
    signOut();
    setSession(null);
  };
  const section = ['#/keys', '#/servers', '#/approvals'].find((s) => hash.startsWith(s)) ?? hash;
  return (
    <>
      <header class="top">
        <span class="brand">keygate</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => admin || !n.adminOnly).map((n) => (
              <li key={n.href}>
                <a href={n.href} aria-current={section === n.href ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="user mono" title="Signed-in user">
          {session.sub.slice(0, 8)}
        </span>
        <button type="button" class="secondary" onClick={logout}>
          Sign out
        </button>
      </header>
      <main>
        <Page hash={hash} admin={admin} me={session.sub} />
      </main>
    </>
  );
}

stashConnectionCallback();
render(<App />, document.getElementById('app')!);
