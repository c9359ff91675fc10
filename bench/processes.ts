import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Started {
  child: ChildProcess;
  baseUrl: string;
  /** The last lines it wrote (up to TAIL_CHARS): what to show when a figure looks wrong. */
  outputTail(): string;
  stop(): Promise<void>;
}

const TAIL_CHARS = 16_000;

/** Starts a compiled script and waits for its "listening on <url>" line. */
export async function startListening(script: string, env: NodeJS.ProcessEnv, nodeFlags: readonly string[] = []): Promise<Started> {
  const child = spawn(process.execPath, [...nodeFlags, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (!match) return;
      // From here on only a bounded tail of its output is kept, as a log shipper would take it.
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      output = output.slice(-TAIL_CHARS);
      const keepTail = (more: Buffer) => {
        output = (output + more.toString()).slice(-TAIL_CHARS);
      };
      child.stdout.on('data', keepTail);
      child.stderr.on('data', keepTail);
      resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    baseUrl,
    outputTail: () => output,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Peak resident set size of a process so far (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
}

/** CPU time (user + system) a process has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks
}
