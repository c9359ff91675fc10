/**
 * An upstream's authorization server sends the browser back to /console/connections/callback?code=…&state=….
 * The query is kept in this tab's sessionStorage and the page goes on at #/connections/callback, where the
 * signed-in user hands it to the API (signing in first if needed): keygate completes only an authorization that
 * user started, so a link someone else started never connects their account with this user's upstream grant.
 */
const KEY = 'keygate.connection-callback';
const PAGE = '/console/connections/callback';
const FIELDS = ['state', 'code', 'iss', 'error', 'error_description'] as const;

export type ConnectionCallback = Partial<Record<(typeof FIELDS)[number], string>>;

/** Called before anything else reads the URL: moves the callback's query out of the address bar. */
export function stashConnectionCallback(): void {
  if (location.pathname !== PAGE) return;
  const params = new URLSearchParams(location.search);
  const kept: ConnectionCallback = {};
  for (const field of FIELDS) {
    const value = params.get(field);
    if (value !== null) kept[field] = value;
  }
  sessionStorage.setItem(KEY, JSON.stringify(kept));
  history.replaceState(null, '', '/console/#/connections/callback');
}

/** The kept query, once. */
export function takeConnectionCallback(): ConnectionCallback | null {
  const kept = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as ConnectionCallback | null;
  sessionStorage.removeItem(KEY);
  return kept;
}
