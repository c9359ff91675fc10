import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '../../../src/infrastructure/server/node-flags';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = 'dist/src/infrastructure/server/main.js';

describe('the Node flags the service runs with', () => {
  it('are the ones npm start passes', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toContain(`node ${SERVICE_NODE_FLAGS.join(' ')} ${MAIN}`);
  });

  it('are the ones the Dockerfile passes', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(cmd && JSON.parse(cmd[1])).toEqual(['node', ...SERVICE_NODE_FLAGS, MAIN]);
  });
});
