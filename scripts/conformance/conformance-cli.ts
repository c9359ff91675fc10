import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/**
 * One pinned version of the suite and the server scenarios it is asked for.
 * Pinned, so that a new release's scenarios show up as a deliberate upgrade, not as a red CI.
 */
export interface Suite {
  /** Names the suite in the output, in work directories and in baseline file names. */
  name: string;
  package: string;
  /** How `conformance server` picks its scenarios (`--suite all`, or `--requirements <revision>`). */
  selection: string[];
  /** The same choice for `conformance list` (which knows `--requirements` but no `--suite`). */
  listing: string[];
}

/** The suite needs Node 22+; npx fetches one from the npm registry as the `node` package. */
export const NODE_PACKAGE = 'node@22';

export class ConformanceFetchError extends Error {}

/**
 * The official MCP conformance suite, run through npx with its own Node 22.
 * `fetch` must come first: it downloads both packages (or finds them in the
 * npx cache) and names the server scenarios the suite scores.
 */
export class ConformanceCli {
  constructor(
    private readonly workDir: string,
    readonly suite: Suite,
  ) {}

  /** Node's version and the server scenarios the suite scores. */
  async fetch(): Promise<{ nodeVersion: string; scenarios: string[] }> {
    const list = ['conformance', 'list', '--server', ...this.suite.listing].join(' ');
    const run = await npx(this.suite, ['-c', `node --version && ${list}`], this.workDir, 300_000);
    if (run.code !== 0) {
      throw new ConformanceFetchError(
        `could not fetch ${NODE_PACKAGE} and ${this.suite.package} with npx (${run.code === null ? 'timed out' : `exit ${run.code}`}).\n` +
          `The conformance suite needs Node 22 or newer, which npx downloads from the npm registry as the \`node\` package;\n` +
          `check that the registry is reachable (npm config get registry; npm ping).\nnpx said:\n${tail(run.output, 30)}`,
      );
    }
    const nodeVersion = /^v(\d+)\.\S+$/m.exec(run.output);
    if (!nodeVersion || Number(nodeVersion[1]) < 22) {
      throw new ConformanceFetchError(`npx -p ${NODE_PACKAGE} did not put Node 22+ first on the PATH:\n${tail(run.output, 30)}`);
    }
    const scenarios = scoredServerScenarios(run.output);
    if (scenarios.length === 0) throw new ConformanceFetchError(`${list} named no server scenarios:\n${tail(run.output, 30)}`);
    return { nodeVersion: nodeVersion[0], scenarios };
  }

  /** The suite's server scenarios against `url`; each one's checks land in `outputDir`. Resolves with the exit code (null: timed out). */
  async runServer(url: string, expectedFailuresFile: string, outputDir: string, logFile: string, echo: boolean): Promise<number | null> {
    const args = [
      '--',
      'conformance',
      'server',
      '--url',
      url,
      ...this.suite.selection,
      '--expected-failures',
      expectedFailuresFile,
      '-o',
      outputDir,
    ];
    const log = createWriteStream(logFile);
    const run = await npx(this.suite, args, this.workDir, 600_000, (chunk) => {
      log.write(chunk);
      if (echo) process.stdout.write(chunk);
    });
    await new Promise((resolve) => log.end(resolve));
    return run.code;
  }
}

/**
 * The "Server scenarios" block of `conformance list`. A `--requirements`
 * listing goes on with client scenarios and with server scenarios that are
 * run but never scored, which do not count.
 */
export function scoredServerScenarios(listing: string): string[] {
  const block = /^Server scenarios.*\n((?:[ \t]+- .*\n?)+)/m.exec(listing);
  return block ? [...block[1].matchAll(/^[ \t]+- (\S+)/gm)].map((m) => m[1]) : [];
}

function npx(
  suite: Suite,
  args: string[],
  cwd: string,
  timeoutMs: number,
  onOutput?: (chunk: Buffer) => void,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Its own process group, so that a timeout ends npx and the suite it started together.
    const child = spawn('npx', ['--yes', '-p', NODE_PACKAGE, '-p', suite.package, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
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
  return text
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .map((line) => `  ${line}`)
    .join('\n');
}
