import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** Pinned, so that a new release's scenarios show up as a deliberate upgrade, not as a red CI. */
export const SUITE_PACKAGE = '@modelcontextprotocol/conformance@0.1.16';
/** The suite needs Node 22+; npx fetches one from the npm registry as the `node` package. */
export const NODE_PACKAGE = 'node@22';

const NPX_PACKAGES = ['--yes', '-p', NODE_PACKAGE, '-p', SUITE_PACKAGE];

export class ConformanceFetchError extends Error {}

/**
 * The official MCP conformance suite, run through npx with its own Node 22.
 * `fetch` must come first: it downloads both packages (or finds them in the
 * npx cache) and names the server scenarios this version has.
 */
export class ConformanceCli {
  constructor(private readonly workDir: string) {}

  async fetch(): Promise<{ nodeVersion: string; scenarios: string[] }> {
    const run = await npx(['-c', 'node --version && conformance list --server'], this.workDir, 300_000);
    if (run.code !== 0) {
      throw new ConformanceFetchError(
        `could not fetch ${NODE_PACKAGE} and ${SUITE_PACKAGE} with npx (${run.code === null ? 'timed out' : `exit ${run.code}`}).\n` +
          `The conformance suite needs Node 22 or newer, which npx downloads from the npm registry as the \`node\` package;\n` +
          `check that the registry is reachable (npm config get registry; npm ping).\nnpx said:\n${tail(run.output, 30)}`,
      );
    }
    const nodeVersion = /^v(\d+)\.\S+$/m.exec(run.output);
    if (!nodeVersion || Number(nodeVersion[1]) < 22) {
      throw new ConformanceFetchError(`npx -p ${NODE_PACKAGE} did not put Node 22+ first on the PATH:\n${tail(run.output, 30)}`);
    }
    const scenarios = [...run.output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
    if (scenarios.length === 0) throw new ConformanceFetchError(`conformance list --server named no scenarios:\n${tail(run.output, 30)}`);
    return { nodeVersion: nodeVersion[0], scenarios };
  }

  /** Every server scenario against `url`; each one's checks land in `outputDir`. Resolves with the exit code (null: timed out). */
  async runServer(url: string, expectedFailuresFile: string, outputDir: string, logFile: string, echo: boolean): Promise<number | null> {
    const args = ['--', 'conformance', 'server', '--url', url, '--suite', 'all', '--expected-failures', expectedFailuresFile, '-o', outputDir];
    const log = createWriteStream(logFile);
    const run = await npx(args, this.workDir, 600_000, (chunk) => {
      log.write(chunk);
      if (echo) process.stdout.write(chunk);
    });
    await new Promise((resolve) => log.end(resolve));
    return run.code;
  }
}

function npx(args: string[], cwd: string, timeoutMs: number, onOutput?: (chunk: Buffer) => void): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Its own process group, so that a timeout ends npx and the suite it started together.
    const child = spawn('npx', [...NPX_PACKAGES, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000);
      onOutput?.(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}\n${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ? null : code, output });
    });
  });
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).map((line) => `  ${line}`).join('\n');
}
