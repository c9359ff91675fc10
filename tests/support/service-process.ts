import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '../../src/infrastructure/server/node-flags';

export const ROOT = path.resolve(__dirname, '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js');

/** Compiles the service as `npm start` does, so tests run what users run (global-setup calls it). */
export function buildService(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Environment of the test runner without anything that would point the service elsewhere. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|TEST_DATABASE_URL|JWT_|PORT$|DATA_DIR$|NODE_ENV$|MAX_KEYS)/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

export function startService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN], {
    cwd: ROOT,
    env: cleanEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, baseUrl: '', output: () => output, exited };
}

/** Waits for the start-up line (printed last, after the token banner) and fills in the base URL. */
export async function waitForListening(service: ServiceProcess, timeoutMs = 60_000): Promise<ServiceProcess> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /listening on (http:\/\/localhost:\d+)/.exec(service.output());
    if (match) return { ...service, baseUrl: match[1] };
    if (service.child.exitCode !== null) throw new Error(`service exited early:\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`service did not start:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
