import { Check, isGreen, judge, parseExpectedFailures } from '../../../scripts/conformance/baseline';

const ok: Check[] = [{ id: 'a', status: 'SUCCESS' }];
const warned: Check[] = [{ id: 'a', status: 'SUCCESS' }, { id: 'b', status: 'WARNING', errorMessage: 'no session ID' }];

describe('conformance baseline', () => {
  it('reads "server: []" as no expected failures, and refuses an entry under it', () => {
    expect(parseExpectedFailures('# none\nserver: []\n', 'none.yml')).toEqual([]);
    expect(() => parseExpectedFailures('server: []\n  - ping # why\n', 'none.yml')).toThrow('none.yml:2');
  });

  it('needs a reason on every server entry', () => {
    expect(parseExpectedFailures('server:\n  - ping # keygate has no ping\n', 'f.yml')).toEqual([{ scenario: 'ping', reason: 'keygate has no ping' }]);
    expect(() => parseExpectedFailures('server:\n  - ping\n', 'f.yml')).toThrow('needs a "# <reason>"');
  });

  it('with no expected failures, a WARNING or a scenario without results is red', () => {
    const scenarios = ['ping', 'server-sse-polling', 'tools-list'];
    const verdict = judge(scenarios, new Map([['ping', ok], ['server-sse-polling', warned]]), []);
    expect(verdict.unexpectedFailures).toEqual(['server-sse-polling', 'tools-list']);
    expect(isGreen(verdict)).toBe(false);
    expect(isGreen(judge(['ping'], new Map([['ping', ok]]), []))).toBe(true);
  });
});
