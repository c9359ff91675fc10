import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Browser, Page } from 'playwright-core';
import { DevTokenIssuer } from '../../src/adapters/auth/dev-token-issuer';
import { buildConsole, checkConsoleAnswers, checkPage, CHROMIUM_PATH, launchChromium, openConsolePage } from '../support/browser';
import { ServiceProcess, startService, waitForListening } from '../support/service-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeWithProgram, installedAt } from '../support/system-program';

jest.setTimeout(120_000);

let db: TestDatabase;
let dataDir: string;
let service: ServiceProcess;
let browser: Browser;
let page: Page;
let answersChecked: () => Promise<void>;
const cspViolations: string[] = [];

const openPage = (): Promise<Page> => openConsolePage(browser, cspViolations);

beforeAll(async () => {
  buildConsole();
  db = await createTestDatabase();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'keygate-console-usage-'));
  // Usage is written in batches: a short interval lets the charts show the calls within the test.
  service = await waitForListening(
    startService({ DATABASE_URL: db.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn', USAGE_FLUSH_INTERVAL_MS: '100' }),
  );
  browser = await launchChromium();
  page = await openPage();
  answersChecked = checkConsoleAnswers(page);
});

afterAll(async () => {
  await browser?.close();
  service?.child.kill('SIGTERM');
  await service?.exited;
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const sessionToken = (): Promise<string> => page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).accessToken");

async function rest<T>(method: string, apiPath: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${service.baseUrl}/api/v1${apiPath}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Tool calls through /mcp with the official SDK client: `allowed` calls of projects (granted), `denied` of chat (not granted). */
async function callTools(rawKey: string, allowed: number, denied: number): Promise<void> {
  const client = new Client({ name: 'console-usage-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': rawKey } } }),
  );
  try {
    for (let i = 0; i < allowed; i++)
      expect((await client.callTool({ name: 'projects', arguments: { action: 'list' } })).isError).toBeFalsy();
    for (let i = 0; i < denied; i++) await expect(client.callTool({ name: 'chat', arguments: {} })).rejects.toThrow(/Insufficient scope/);
  } finally {
    await client.close();
  }
}

/** Waits until the usage API counts `count` calls of the key: the replica flushes its counts in batches. */
async function usageCounted(token: string, keyId: string, count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await rest<{ total: { count: number } }>('GET', `/usage?key_id=${keyId}`, token);
    if (body.total.count === count) return;
    if (Date.now() > deadline) throw new Error(`usage of ${keyId} stayed at ${body.total.count}, not ${count}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Pixels of exactly this colour on the chart canvas named `name`: bars drawn with data, not just axes. */
function pixelsOf(on: Page, name: string, rgb: [number, number, number]): Promise<number> {
  // A string: the service's tsconfig has no DOM types.
  return on.evaluate<number>(`(() => {
    const caption = [...document.querySelectorAll('figcaption')].find((c) => c.textContent.startsWith(${JSON.stringify(name)}));
    const canvas = caption.closest('figure').querySelector('canvas');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] === ${rgb[0]} && data[i + 1] === ${rgb[1]} && data[i + 2] === ${rgb[2]}) n++;
    return n;
  })()`);
}

const CALLED: [number, number, number] = [0x00, 0x72, 0xb2];
const DENIED: [number, number, number] = [0xd5, 0x5e, 0x00];

/** The rows of the data table behind the chart whose caption starts with `name`, opened first. */
async function tableOf(on: Page, name: string): Promise<string[][]> {
  const figure = on.locator('figure').filter({ has: on.locator('figcaption', { hasText: name }) });
  const details = figure.locator('details');
  if ((await details.getAttribute('open')) === null) await figure.locator('summary').click();
  const rows = await figure.locator('table tr').all();
  return Promise.all(rows.map(async (row) => (await row.locator('th, td').allInnerTexts()).map((t) => t.trim())));
}

describeWithProgram(
  'chromium',
  installedAt([CHROMIUM_PATH]),
  'apt-get install chromium',
)("the console's usage charts in Chromium", () => {
  let token: string;
  let usageKey: { id: string; raw_key: string };
  let otherKey: { id: string; raw_key: string };

  it("shows a key's calls by outcome over time and its top tools, drawn and as tables", async () => {
    await page.goto(`${service.baseUrl}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign in as the development user' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    token = await sessionToken();
    usageKey = (await rest<{ id: string; raw_key: string }>('POST', '/api-keys', token, { name: 'agent', scopes: ['projects:read'] })).body;
    otherKey = (await rest<{ id: string; raw_key: string }>('POST', '/api-keys', token, { name: 'worker', scopes: ['projects:read'] }))
      .body;
    await callTools(usageKey.raw_key, 3, 2);
    await callTools(otherKey.raw_key, 4, 0);
    await usageCounted(token, usageKey.id, 5);
    await usageCounted(token, otherKey.id, 4);

    await page.goto(`${service.baseUrl}/console/#/keys/${usageKey.id}`);
    await page.getByRole('heading', { name: 'Usage', level: 2 }).waitFor();
    const outcomes = 'Tool calls of this key by outcome';
    await page.getByRole('img', { name: new RegExp(`^${outcomes}, 5 in all`) }).waitFor();
    expect(await page.getByLabel('Range').inputValue()).toBe('24h');
    expect(await pixelsOf(page, outcomes, CALLED)).toBeGreaterThan(50);
    expect(await pixelsOf(page, outcomes, DENIED)).toBeGreaterThan(20);
    const byOutcome = await tableOf(page, outcomes);
    expect(byOutcome[0]).toEqual(['Hour from (UTC)', 'called', 'denied', 'rate_limited', 'quota_exhausted', 'upstream_error', 'All']);
    // One hour had every call (unless the calls straddled an hour, then two rows sum to the same total).
    expect(byOutcome.at(-1)).toEqual(['Total', '3', '2', '0', '0', '0', '5']);

    const tools = 'Top tools of this key';
    expect(await pixelsOf(page, tools, CALLED)).toBeGreaterThan(50);
    const byTool = await tableOf(page, tools);
    expect(byTool.map((row) => row.slice(0, 2))).toEqual([
      ['Tool', 'Calls'],
      ['projects', '3'],
      ['chat', '2'],
    ]);
    expect(byTool[1][3]).toMatch(/^\d+(\.\d)? ms$/);
    await page.getByRole('heading', { name: 'Usage', level: 2 }).scrollIntoViewIfNeeded();
    await checkPage(page, 'key-usage');

    // The last hour by minute: the same calls, in minute buckets.
    await page.getByLabel('Range').selectOption('1h');
    await page.getByRole('img', { name: new RegExp(`^${outcomes}, 5 in all`) }).waitFor();
    const byMinute = await tableOf(page, outcomes);
    expect(byMinute[0][0]).toBe('Minute from (UTC)');
    expect(byMinute.at(-1)).toEqual(['Total', '3', '2', '0', '0', '0', '5']);
    await answersChecked();
  });

  it("shows the user's keys side by side and, to an admin, every user's totals", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Usage' }).getAttribute('aria-current')).toBe('page');
    const perKey = 'Tool calls per key';
    await page.getByRole('img', { name: new RegExp(`^${perKey}, with p95 latency, 9 in all`) }).waitFor();
    expect(await pixelsOf(page, perKey, CALLED)).toBeGreaterThan(50);
    const keys = await tableOf(page, perKey);
    expect(keys[0]).toEqual(['Key', 'Calls', 'p50', 'p95']);
    expect(keys.slice(1).map((row) => row.slice(0, 2))).toEqual([
      [`agent (${usageKey.raw_key.slice(0, 8)}…)`, '5'],
      [`worker (${otherKey.raw_key.slice(0, 8)}…)`, '4'],
    ]);
    const overTime = 'Tool calls of all your keys by outcome';
    expect(await pixelsOf(page, overTime, CALLED)).toBeGreaterThan(50);
    expect((await tableOf(page, overTime)).at(-1)).toEqual(['Total', '7', '2', '0', '0', '0', '9']);
    const perUser = 'Tool calls per user';
    expect(await pixelsOf(page, perUser, CALLED)).toBeGreaterThan(50);
    const users = await tableOf(page, perUser);
    const sub = (await page.evaluate<string>("JSON.parse(sessionStorage.getItem('keygate.session')).sub")).slice(0, 8);
    expect(users.slice(1).map((row) => row.slice(0, 2))).toEqual([[`${sub} (you)`, '9']]);
    await page.getByRole('heading', { name: 'Usage', level: 1 }).scrollIntoViewIfNeeded();
    await checkPage(page, 'usage-overview');
    await answersChecked();
  });

  it("shows a non-admin their own keys only, with no other user's totals", async () => {
    const sub = randomUUID();
    const other = await openPage();
    const otherChecked = checkConsoleAnswers(other);
    const otherToken = DevTokenIssuer.loadOrCreate(dataDir).mint({ sub, admin: false, ttlSeconds: 600 });
    await other.goto(`${service.baseUrl}/console/`);
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    const session = JSON.stringify({ accessToken: otherToken, expiresAt: Date.now() + 600_000, sub });
    await other.evaluate(`sessionStorage.setItem('keygate.session', ${JSON.stringify(session)})`);
    await other.goto(`${service.baseUrl}/console/#/usage`);
    await other.reload();
    await other.getByRole('img', { name: /^Tool calls per key, with p95 latency, 0 in all/ }).waitFor();
    expect((await tableOf(other, 'Tool calls per key')).slice(1)).toEqual([['No calls in this range.']]);
    expect(await other.getByRole('heading', { name: 'All users' }).count()).toBe(0);
    await checkPage(other, 'usage-empty', false);
    // The API, not the page, keeps other users' totals from a non-admin.
    expect((await rest('GET', '/usage?group_by=user', otherToken)).status).toBe(403);
    await otherChecked();
    await other.context().close();
    expect(cspViolations).toEqual([]);
  });
});
