import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { isDocumentedPath, recordResponse } from './openapi-drift';
import { ROOT } from './service-process';

/** A fresh page at desktop size, a 10 s default wait, and every Content-Security-Policy report it logs added to `cspViolations`. */
export async function openConsolePage(browser: Browser, cspViolations: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const opened = await context.newPage();
  opened.setDefaultTimeout(10_000);
  opened.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  return opened;
}

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Builds the console as `npm run build` does (global-setup compiles only the service, to keep other runs short). */
export function buildConsole(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'web', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

/** One headless Chromium; missing (only under CI=true does a test get this far without it), the test fails saying how to get it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  // Root in a container has no user namespace for Chromium's sandbox.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * The serious and critical axe-core violations of what the page shows now. axe is evaluated over the
 * DevTools protocol, which the page's CSP does not govern, so the CSP stays as strict as users get it.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // A string: the service's tsconfig has no DOM types.
  const violations = await page.evaluate<AxeViolation[]>("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)");
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')})`,
    );
}

/** UPDATE_CONSOLE_SCREENSHOTS=1 writes docs/console/*.png (docs/key-console.md links them); otherwise nothing in the tree changes. */
export const SCREENSHOTS = process.env.UPDATE_CONSOLE_SCREENSHOTS === '1' ? path.join(ROOT, 'docs', 'console') : null;

/** axe finds nothing serious or critical in what `page` shows now; with SCREENSHOTS (and `shot`), `<name>.png` is drawn. */
export async function checkPage(page: Page, name: string, shot = true): Promise<void> {
  expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  if (SCREENSHOTS && shot) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }
}

/**
 * Checks every /api/v1 answer the console receives against the OpenAPI document, as the tests' own fetches
 * are. The returned function waits for the checks of answers already received.
 */
export function checkConsoleAnswers(page: Page): () => Promise<void> {
  const pending = new Set<Promise<void>>();
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (!isDocumentedPath(url.pathname)) return;
    const method = response.request().method();
    // A body the page no longer holds (it navigated away) is not checked rather than checked as empty.
    const check = response.text().then(
      (body) =>
        recordResponse({ method, path: url.pathname, status: response.status(), contentType: response.headers()['content-type'], body }),
      () => undefined,
    );
    pending.add(check);
    void check.finally(() => pending.delete(check));
  });
  return async () => void (await Promise.all([...pending]));
}
