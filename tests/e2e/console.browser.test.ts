import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole, checkPage, CHROMIUM_PATH, launchChromium, SCREENSHOTS } from '../support/browser';
import { freePort } from '../support/nginx';
import { OAuthAuthorizationServer } from '../support/oauth-authorization-server';
import { startOAuthUpstream } from '../support/oauth-upstream';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeWithProgram, installedAt } from '../support/system-program';

jest.setTimeout(120_000);

let db: TestDatabase;
let dataDir: string;
let service: ServiceProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const cspViolations: string[] = [];
/** Every request the console's tab makes: none may leave the service's origin. */
const requested: string[] = [];

beforeAll(async () => {
  buildConsole();
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-console-'));
  // A port chosen up front: without PUBLIC_URL, development's redirect URI for oauth connections is http://localhost:PORT.
  const port = String(await freePort());
  service = await waitForListening(
    startService({ DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: port, MCP_UPSTREAM_ALLOWLIST: '127.0.0.0/8' }),
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  page.on('request', (r) => requested.push(r.url()));
});

afterAll(async () => {
  await browser?.close();
  service?.child.kill('SIGTERM');
  await service?.exited;
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const check = (name: string, on: Page = page, shot = true) => checkPage(on, name, shot);

/** Origins other than the service's among these URLs (data: URLs never leave the machine). */
function foreignOrigins(urls: string[]): string[] {
  return [...new Set(urls.filter((url) => !url.startsWith('data:')).map((url) => new URL(url).origin))].filter(
    (o) => o !== service.baseUrl,
  );
}

/** A key as the API reports it, read with the console's own access token. */
async function keyFromApi(id: string): Promise<Record<string, unknown>> {
  const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");
  const res = await fetch(`${service.baseUrl}/api/v1/api-keys/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function toolsOf(rawKey: string): Promise<string[]> {
  const client = new Client({ name: 'console-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': rawKey } } }),
  );
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

async function mcpStatus(rawKey: string): Promise<number> {
  const res = await fetch(`${service.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'X-API-Key': rawKey, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A REST call with the console's own access token. */
async function restAs(): Promise<(method: string, path: string, body?: unknown) => Promise<Response>> {
  const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");
  return (method, path, body) =>
    fetch(`${service.baseUrl}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
}

/** Signs the console in as the development user (after an earlier test signed out). */
async function signIn(): Promise<void> {
  await page.goto(`${service.baseUrl}/console/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign in as the development user' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

async function shownKey(): Promise<string> {
  const raw = await page.getByLabel('New key').inputValue();
  expect(raw).toMatch(/^svc_[0-9a-f]{64}$/);
  return raw;
}

describeWithProgram(
  'chromium',
  installedAt([CHROMIUM_PATH]),
  'apt-get install chromium',
)('the key console in Chromium', () => {
  it('is served with a strict CSP, long cache for hashed assets and none for index.html', async () => {
    const index = await fetch(`${service.baseUrl}/console/`);
    const html = await index.text();
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await fetch(`${service.baseUrl}${asset}`);
    await js.arrayBuffer();
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('signs in with PKCE, creates a key that works on /mcp, edits, rolls and revokes it, and opens a key by URL', async () => {
    await page.goto(`${service.baseUrl}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await check('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dev-oidc\/authorize\?/);
    expect(page.url()).toContain('code_challenge_method=S256');
    await check('dev-sign-in');
    await page.getByRole('button', { name: 'Sign in as the development user' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).toBe(`${service.baseUrl}/console/#/keys`);
    // Strings, not functions: the service's tsconfig has no DOM types.
    expect(await page.evaluate("({ local: localStorage.length, session: sessionStorage.getItem('keygate.session') !== null })")).toEqual({
      local: 0,
      session: true,
    });

    // Create: write implies read, shown as such.
    await page.getByRole('link', { name: 'Create key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('browser key');
    await page.locator('input[name="projects:write"]').check();
    expect(await page.locator('input[name="projects:read"]').isChecked()).toBe(true);
    expect(await page.locator('input[name="projects:read"]').isDisabled()).toBe(true);
    await page.locator('input[name="chat:read"]').check();
    await page.getByLabel('Limit requests').check();
    await page.getByLabel('Requests', { exact: true }).fill('100');
    await check('create-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const raw = await shownKey();
    await check('key-created');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(raw);
    expect(await toolsOf(raw)).toEqual(['chat', 'projects']);

    await page.getByRole('button', { name: 'I have stored the key' }).click();
    const row = page.getByRole('row').filter({ hasText: 'browser key' });
    await row.waitFor();
    expect(await row.innerText()).toContain(raw.slice(0, 8));
    expect(await row.innerText()).toContain('100 per 1 min');

    await page.getByRole('link', { name: 'browser key' }).click();
    await page.getByRole('heading', { name: 'Key "browser key"' }).waitFor();
    await page.getByText('key.created').waitFor();
    const id = /#\/keys\/([0-9a-f-]{36})$/.exec(page.url())![1];
    await check('key-detail');

    // Edit: the API's refusal is shown as an alert and changes nothing; then the name and rate limit change.
    await page.getByRole('button', { name: 'Edit key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('edited key');
    await page.getByLabel('Requests', { exact: true }).fill('250');
    await page.getByLabel('Limit tool calls').check();
    await page.getByLabel('Calls', { exact: true }).fill('0');
    await page.getByLabel('refilled').selectOption('hour');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('quota.refill.amount');
    expect(await keyFromApi(id)).toMatchObject({ name: 'browser key', quota: null });
    await page.getByLabel('Limit tool calls').uncheck();
    await check('edit-key');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Key "edited key"' }).waitFor();
    expect(await page.getByRole('status').innerText()).toBe('Saved: name, rate limit.');
    expect(await page.locator('.facts').innerText()).toContain('250 per 1 min');
    await page.getByText('key.updated').waitFor();
    expect(await keyFromApi(id)).toMatchObject({ name: 'edited key', rate_limit: { limit: 250, window_seconds: 60 }, quota: null });
    await check('key-edited', page, false);
    await page.getByRole('link', { name: '← All keys' }).click();

    // Roll with an hour's grace: both keys work, and the list says when the old one stops.
    await page.getByRole('button', { name: 'Roll edited key' }).click();
    expect(await page.getByLabel('Grace period: how long the old key keeps working').inputValue()).toBe('3600');
    await check('roll-key');
    await page.getByRole('button', { name: 'Roll key' }).click();
    const rolled = await shownKey();
    expect(rolled).not.toBe(raw);
    expect(await toolsOf(raw)).toEqual(['chat', 'projects']);
    expect(await toolsOf(rolled)).toEqual(['chat', 'projects']);
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    const oldRow = page.getByRole('row').filter({ hasText: raw.slice(0, 8) });
    await oldRow.getByText(/^rolled, stops in (60 minutes|1 hour)$/).waitFor();
    expect(
      await page
        .getByRole('row')
        .filter({ hasText: rolled.slice(0, 8) })
        .innerText(),
    ).toContain('250 per 1 min');
    await check('keys');

    await page.getByRole('button', { name: 'Revoke edited key (rolled)', exact: true }).click();
    await page.getByRole('heading', { name: 'Revoke "edited key"?' }).waitFor();
    await check('revoke-key');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await oldRow.waitFor({ state: 'detached' });
    expect(await mcpStatus(raw)).toBe(401);
    await page.getByRole('button', { name: 'Revoke edited key', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No keys yet.').waitFor();
    expect(await mcpStatus(rolled)).toBe(401);

    // A fresh load of the revoked key's URL: no list holds it, yet its facts and trail show, newest first.
    await page.goto('about:blank');
    await page.goto(`${service.baseUrl}/console/#/keys/${id}`);
    await page.getByRole('heading', { name: 'Key "edited key"' }).waitFor();
    await page.getByText(/^Revoked /).waitFor();
    const trail = page.getByRole('table', { name: 'Audit events, newest first' });
    await trail.getByText('key.revoked').waitFor();
    expect(await trail.locator('tbody td:nth-child(2)').allInnerTexts()).toEqual([
      'key.revoked',
      'key.rolled',
      'key.updated',
      'key.created',
    ]);
    await check('revoked-key-detail', page, false);
    expect(foreignOrigins(requested)).toEqual([]);
  });

  it('pages the keys table past 25 keys', async () => {
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");
    for (let i = 1; i <= 26; i += 1) {
      const res = await fetch(`${service.baseUrl}/api/v1/api-keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `paged ${i}` }),
      });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
    }
    await page.goto(`${service.baseUrl}/console/#/keys`);
    const pager = page.getByRole('navigation', { name: 'Pages of keys' });
    await pager.getByText('Keys 1–25 of 26').waitFor();
    expect(await page.getByRole('link', { name: /^paged / }).count()).toBe(25);
    await check('keys-paged', page, false);
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Keys 26–26 of 26').waitFor();
    // Newest first: the first key made is alone on the last page.
    expect(await page.getByRole('link', { name: /^paged / }).allInnerTexts()).toEqual(['paged 1']);
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
  });

  it('shows the API reference at /docs: every operation, nothing from another origin, no CSP violation or error', async () => {
    const docs = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    docs.on('request', (r) => requests.push(r.url()));
    docs.on('console', (m) => {
      if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(m.text());
    });
    docs.on('pageerror', (e) => problems.push(e.message));
    const document = (await (await fetch(`${service.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((method) => method !== 'parameters'));
    await docs.goto(`${service.baseUrl}/docs`);
    await docs.locator('.opblock').first().waitFor();
    expect(await docs.locator('.opblock').count()).toBe(operations.length);
    await docs.getByText('/api/v1/api-keys/{id}', { exact: true }).first().waitFor();
    await check('api-reference', docs, false);
    // The top of the page only: the whole reference would be a very tall picture.
    if (SCREENSHOTS) await docs.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png') });
    expect(problems).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(foreignOrigins(requests)).toEqual([]);
    await docs.close();
  });

  it("connects to a user_secret server from the servers page with the user's own secret, and disconnects", async () => {
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");
    const rest = (method: string, path: string, body?: unknown) =>
      fetch(`${service.baseUrl}/api/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const auth = { type: 'user_secret', header: 'Authorization', prefix: 'Bearer ' };
    const created = await rest('POST', '/mcp-servers', { name: 'personal', url: 'https://personal.example.invalid/mcp', auth });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const state = async () => ((await (await rest('GET', `/mcp-servers/${id}/connection`)).json()) as { state: string }).state;

    await page.getByRole('link', { name: 'MCP servers' }).click();
    await page.getByRole('link', { name: 'Connect personal' }).click();
    await page.getByRole('heading', { name: 'Connect to personal' }).waitFor();
    expect(page.url()).toBe(`${service.baseUrl}/console/#/servers/${id}/connect`);
    await page.getByText('Not connected').waitFor();
    await page.getByLabel('Your secret', { exact: true }).fill('sk-from-the-console');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Connected', { exact: true }).waitFor();
    expect(await page.getByLabel('Your secret', { exact: true }).inputValue()).toBe('');
    expect(await state()).toBe('connected');
    await check('server-connect', page, false);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByText('Not connected').waitFor();
    expect(await state()).toBe('not_connected');
    expect((await rest('DELETE', `/mcp-servers/${id}`)).status).toBe(204);
  });

  it("connects to an oauth server: Connect goes to the upstream's authorization server, which sends the browser back to the console, which completes it as the signed-in user", async () => {
    const as = await new OAuthAuthorizationServer().start({ resourceScopes: 'mcp:tools' });
    const upstream = await startOAuthUpstream(as);
    try {
      const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");
      const rest = (method: string, path: string, body?: unknown) =>
        fetch(`${service.baseUrl}/api/v1${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const created = await rest('POST', '/mcp-servers', { name: 'linear', url: upstream.url, auth: { type: 'oauth' } });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };

      await page.getByRole('link', { name: 'MCP servers' }).click();
      await page.getByRole('link', { name: 'Connect linear' }).click();
      await page.getByRole('heading', { name: 'Connect to linear' }).waitFor();
      await page.getByText('Not connected').waitFor();
      // The test authorization server logs in whoever this header names and consents at once.
      await page.setExtraHTTPHeaders({ 'X-Test-Account': 'console-user-at-linear' });
      const seen: string[] = [];
      const onRequest = (r: { url(): string }) => seen.push(r.url());
      page.on('request', onRequest);
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.waitForURL(`${service.baseUrl}/console/#/servers/${id}/connect`);
      await page.getByText('Connected as console-user-at-linear', { exact: true }).waitFor();
      page.off('request', onRequest);
      await page.setExtraHTTPHeaders({});
      expect(seen.some((url) => url.startsWith(`${as.issuer}/`))).toBe(true);
      expect(seen.some((url) => url.startsWith(`${service.baseUrl}/console/connections/callback?`))).toBe(true);
      const state = (await (await rest('GET', `/mcp-servers/${id}/connection`)).json()) as { state: string; scopes: string[] };
      expect(state).toMatchObject({ state: 'connected', scopes: expect.arrayContaining(['mcp:tools']) });
      await check('server-connect-oauth', page, false);
      await page.getByRole('link', { name: 'Back to servers' }).click();
      await page.getByText('Connected as console-user-at-linear', { exact: true }).waitFor();
      await page.getByRole('link', { name: 'Connect linear' }).click();
      await page.getByRole('button', { name: 'Disconnect' }).click();
      await page.getByText('Not connected').waitFor();
      expect((await rest('DELETE', `/mcp-servers/${id}`)).status).toBe(204);
    } finally {
      await page.setExtraHTTPHeaders({});
      await upstream.stop();
      await as.stop();
    }
  });

  it('a callback that finds the console signed out signs in first and then hands the query over as that user', async () => {
    const fresh = await browser.newContext();
    try {
      const tab = await fresh.newPage();
      tab.setDefaultTimeout(10_000);
      const posted: string[] = [];
      tab.on(
        'request',
        (r) => r.method() === 'POST' && r.url().endsWith('/api/v1/mcp-servers/connections/callback') && posted.push(r.postData() ?? ''),
      );
      await tab.goto(`${service.baseUrl}/console/connections/callback?state=someone-elses-state&code=a-code`);
      // The code and state leave the address bar before anything else runs.
      expect(tab.url()).toBe(`${service.baseUrl}/console/#/connections/callback`);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('button', { name: 'Sign in as the development user' }).click();
      await tab.getByText(/is unknown, expired, already used or from a connection someone else started/).waitFor();
      expect(tab.url()).toBe(`${service.baseUrl}/console/#/connections/callback`);
      expect(posted.map((body) => JSON.parse(body) as unknown)).toEqual([{ state: 'someone-elses-state', code: 'a-code' }]);
    } finally {
      await fresh.close();
    }
  });

  it('lists and adds upstream MCP servers and shows the admin pages', async () => {
    await page.getByRole('link', { name: 'MCP servers' }).click();
    await page.getByRole('heading', { name: 'Upstream MCP servers' }).waitFor();
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByLabel('Name', { exact: true }).fill('files');
    await page.getByLabel('URL', { exact: true }).fill('https://mcp.example.invalid/mcp');
    await page.getByRole('form', { name: 'Add a server' }).getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('cell', { name: 'files', exact: true }).waitFor();
    // console-admin.browser.test.ts draws these two pages' screenshots, with a server awaiting approval.
    await check('mcp-servers', page, false);

    await page.getByRole('link', { name: 'Admins' }).click();
    await page.getByRole('row').filter({ hasText: 'observer' }).waitFor();
    await check('admins', page, false);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('keygate.session')")).toBeNull();
    expect(cspViolations).toEqual([]);
  });

  it('explains on the key page why a key cannot use a tool: its tools, hidden ones with why, and each step of a call', async () => {
    await signIn();
    const rest = await restAs();
    const created = await rest('POST', '/api-keys', { name: 'chat only', scopes: ['chat:read'] });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const fromApi = (await (await rest('POST', '/authz/explain', { key_id: id, tool: 'projects' })).json()) as {
      decision: string;
      steps: { step: string; detail: string }[];
    };
    const scopeDetail = fromApi.steps.find((s) => s.step === 'scope')!.detail;
    expect(fromApi.decision).toBe('refused');

    const explains: string[] = [];
    const onRequest = (r: { url(): string }) => r.url().endsWith('/api/v1/authz/explain') && explains.push(r.url());
    page.on('request', onRequest);
    await page.goto(`${service.baseUrl}/console/#/keys/${id}`);
    await page.getByRole('heading', { name: "Why can't this key use …?" }).waitFor();
    const tools = page.getByRole('table', { name: 'Tools of this key' });
    const projectsRow = tools.getByRole('row').filter({ has: page.getByText('projects', { exact: true }) });
    await projectsRow.waitFor();
    expect(await projectsRow.innerText()).toContain('hidden by scope');
    expect(
      await tools
        .getByRole('row')
        .filter({ has: page.getByText('chat', { exact: true }) })
        .innerText(),
    ).toContain('visible');

    // Arguments that are not JSON: said in place, nothing sent.
    await page.getByLabel('Tool, as a client calls it on /mcp').fill('projects');
    await page.getByLabel('Arguments (JSON object, optional)').fill('{"action": ');
    await page.getByRole('button', { name: 'Explain' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('Arguments are not valid JSON');
    expect(await page.getByLabel('Arguments (JSON object, optional)').getAttribute('aria-invalid')).toBe('true');
    expect(explains).toEqual([]);

    await page.getByLabel('Arguments (JSON object, optional)').fill('');
    await page.getByRole('button', { name: 'Explain' }).click();
    const answer = page.getByRole('region', { name: /^projects: / });
    await answer.waitFor();
    expect(await answer.getByRole('heading').innerText()).toBe('projects: refused');
    const steps = answer.getByRole('list', { name: 'Steps, in the order a call meets them' });
    const scopeStep = steps.getByRole('listitem').filter({ hasText: /^Scope: / });
    expect(await scopeStep.innerText()).toContain(`Scope: fail — ${scopeDetail}`);
    expect((await steps.locator(':scope > li > strong').allInnerTexts()).slice(0, 3)).toEqual(['Key', 'Tool', 'Scope']);
    expect(explains).toHaveLength(1);
    page.off('request', onRequest);
    await check('key-explain');

    // A built-in tool's rules, each with its outcome, for the arguments given.
    const rules = [
      { when: 'has(args.text) && args.text == "x"', effect: 'deny', message: 'No x' },
      { when: 'true', effect: 'deny', message: 'Never' },
    ];
    expect((await rest('PUT', '/tool-rules/chat', { rules })).status).toBe(200);
    try {
      await page.getByLabel('Tool, as a client calls it on /mcp').fill('chat');
      await page.getByLabel('Arguments (JSON object, optional)').fill('{"text": "x"}');
      await page.getByRole('button', { name: 'Explain' }).click();
      const rulesStep = page
        .getByRole('region', { name: /^chat: / })
        .getByRole('list', { name: 'Steps, in the order a call meets them' })
        .getByRole('listitem')
        .filter({ hasText: /^Rules: / });
      await rulesStep.waitFor();
      expect(await rulesStep.locator('ol > li').allInnerTexts()).toEqual([
        'Rule 0 (deny): "No x" — matched',
        'Rule 1 (deny): "Never" — not evaluated',
      ]);
      expect(await rulesStep.innerText()).toMatch(/^Rules: fail — /);
    } finally {
      expect((await rest('DELETE', '/tool-rules/chat')).status).toBe(204);
    }
    expect((await rest('DELETE', `/api-keys/${id}`)).status).toBe(204);
  });

  it("edits a server's tool rules: a rule that does not compile shows its error next to its condition and saves nothing; fixed, it saves", async () => {
    const rest = await restAs();
    const created = await rest('POST', '/mcp-servers', { name: 'ruled', url: 'https://ruled.example.invalid/mcp' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const rulesOf = async () => ((await (await rest('GET', `/mcp-servers/${id}`)).json()) as { tool_rules: unknown }).tool_rules;

    await page.getByRole('link', { name: 'MCP servers' }).click();
    await page.getByRole('button', { name: 'Edit ruled' }).click();
    const form = page.getByRole('form', { name: 'Edit ruled' });
    const addRule = async (n: number, when: string, message: string) => {
      await form.getByRole('button', { name: 'Add rule' }).click();
      const rule = form.getByRole('group', { name: `Rule ${n}` });
      await rule.getByLabel('Tool', { exact: true }).fill('echo');
      await rule.getByLabel('When (CEL)').fill(when);
      await rule.getByLabel('Message').fill(message);
      return rule;
    };
    const first = await addRule(1, 'args.text == "rm"', 'No rm through echo');
    // The second rule of echo does not parse: the API names tool_rules.echo[1].when, shown next to that condition only.
    const second = await addRule(2, 'args.n >', 'Nothing big');
    await form.getByRole('button', { name: 'Save' }).click();
    const when = second.getByLabel('When (CEL)');
    const inPlace = second.locator('#rule-1-when-error');
    await inPlace.waitFor();
    expect(await inPlace.innerText()).toMatch(/^line 1, column \d+: /);
    expect(await when.getAttribute('aria-invalid')).toBe('true');
    expect(await when.getAttribute('aria-describedby')).toBe('rule-1-when-error');
    expect(await first.getByLabel('When (CEL)').getAttribute('aria-invalid')).toBeNull();
    expect(await first.locator('.field-error').count()).toBe(0);
    expect(await rulesOf()).toEqual({});
    await check('edit-server-rules');

    // Fixed, and moved first: a tool's rules are saved in the rows' order.
    await when.fill('has(args.n) && args.n > 3.0');
    await second.getByRole('button', { name: 'Move rule 2 up' }).click();
    expect(await form.getByRole('group', { name: 'Rule 1' }).getByLabel('Message').inputValue()).toBe('Nothing big');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    expect(await rulesOf()).toEqual({
      echo: [
        { when: 'has(args.n) && args.n > 3.0', effect: 'deny', message: 'Nothing big' },
        { when: 'args.text == "rm"', effect: 'deny', message: 'No rm through echo' },
      ],
    });
    // Open again: the rules are shown as saved.
    await page.getByRole('button', { name: 'Edit ruled' }).click();
    expect(await page.getByRole('group', { name: 'Rule 2' }).getByLabel('When (CEL)').inputValue()).toBe('args.text == "rm"');
    expect((await rest('DELETE', `/mcp-servers/${id}`)).status).toBe(204);
    expect(cspViolations).toEqual([]);
  });

  it('opens a held call from the URL its tool error names: shows the arguments as text and the rule, approves it (the same call is granted), and denies another from the list', async () => {
    const rest = await restAs();
    const rules = [{ when: 'args.action == "delete"', effect: 'require_approval', message: 'Deleting needs a yes' }];
    expect((await rest('PUT', '/tool-rules/projects', { rules })).status).toBe(200);
    const created = await rest('POST', '/api-keys', { name: 'held calls', scopes: ['projects:write'] });
    expect(created.status).toBe(201);
    const { id: keyId, raw_key: raw } = (await created.json()) as { id: string; raw_key: string };
    // Markup in an argument must be shown as text, never parsed.
    const args = { action: 'delete', id: '<b id="injected">p-1</b>' };
    const client = new Client({ name: 'console-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': raw } } }),
      );
      const held = (await client.callTool({ name: 'projects', arguments: args })) as { isError?: boolean; content: { text: string }[] };
      expect(held.isError).toBe(true);
      const url = /https?:\/\/\S+\/console\/#\/approvals\/[0-9a-f-]{36}|\/console\/#\/approvals\/[0-9a-f-]{36}/.exec(
        held.content[0].text,
      )![0];
      const approvalId = url.slice(-36);
      const approvalOf = async (call: Record<string, string> = args) =>
        (
          (await (await rest('POST', '/authz/explain', { key_id: keyId, tool: 'projects', arguments: call })).json()) as {
            steps: { step: string; approval?: string; approval_id?: string }[];
          }
        ).steps.find((s) => s.step === 'approval');
      expect(await approvalOf()).toMatchObject({ approval: 'pending', approval_id: approvalId });

      await page.goto('about:blank');
      await page.goto(url.startsWith('/') ? `${service.baseUrl}${url}` : url);
      await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
      expect(await page.getByRole('link', { name: 'Approvals' }).getAttribute('aria-current')).toBe('page');
      const card = page.getByRole('article', { name: /^projects/ });
      await card.waitFor();
      expect(await card.getAttribute('class')).toContain('focused');
      expect(await card.innerText()).toContain('Deleting needs a yes');
      expect(await card.innerText()).toContain('built-in');
      const shown = card.getByLabel('Arguments of projects');
      expect(JSON.parse(await shown.innerText())).toEqual(args);
      expect(await page.locator('#injected').count()).toBe(0);
      await check('approval');

      await card.getByRole('button', { name: 'Approve projects' }).click();
      await page.getByText('Approved projects: the same call by the same key now runs once.').waitFor();
      await card.waitFor({ state: 'detached' });
      await page.getByText('No calls are waiting for your approval.').waitFor();
      expect(await approvalOf()).toMatchObject({ approval: 'granted', approval_id: approvalId });

      // Decided: the link now says so plainly.
      await page.goto('about:blank');
      await page.goto(`${service.baseUrl}/console/#/approvals/${approvalId}`);
      await page.getByText(/^The approval this link names is not waiting for you/).waitFor();
      await check('approval-gone', page, false);

      // Another call, denied from the plain list: the same call is then refused.
      const other = { action: 'delete', id: 'p-2' };
      expect(((await client.callTool({ name: 'projects', arguments: other })) as { isError?: boolean }).isError).toBe(true);
      await page.getByRole('link', { name: 'Approvals' }).click();
      await page.getByRole('button', { name: 'Deny projects' }).click();
      await page.getByText('Denied projects: the same call is refused until the approval expires.').waitFor();
      await page.getByText('No calls are waiting for your approval.').waitFor();
      expect(await approvalOf(other)).toMatchObject({ approval: 'denied' });
    } finally {
      await client.close();
      expect((await rest('DELETE', '/tool-rules/projects')).status).toBe(204);
      expect((await rest('DELETE', `/api-keys/${keyId}`)).status).toBe(204);
    }
    expect(cspViolations).toEqual([]);
  });
});
