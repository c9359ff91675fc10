import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
// The global setup has built dist/; openapi-typescript runs there, under Node itself.
const SCRIPT = join(ROOT, 'dist', 'scripts', 'openapi-types.js');

function check(file?: string): { status: number; stderr: string } {
  try {
    execFileSync(process.execPath, [SCRIPT, '--check', ...(file ? [file] : [])], { cwd: ROOT, stdio: 'pipe' });
    return { status: 0, stderr: '' };
  } catch (error) {
    const { status, stderr } = error as { status: number; stderr: Buffer };
    return { status, stderr: stderr.toString() };
  }
}

describe('the console API types (web/src/api.generated.ts)', () => {
  it('are what openapi-typescript makes of the OpenAPI document now: after changing a DTO, run npm run openapi:types', () => {
    expect(check()).toEqual({ status: 0, stderr: '' });
  });

  it('fail the check when stale, naming the command that regenerates them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keygate-api-types-'));
    try {
      const stale = join(dir, 'api.generated.ts');
      writeFileSync(stale, readFileSync(join(ROOT, 'web', 'src', 'api.generated.ts'), 'utf8').replace('raw_key: string;', ''));
      const result = check(stale);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('npm run openapi:types');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
