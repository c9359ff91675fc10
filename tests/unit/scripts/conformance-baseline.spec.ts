import { Check, isGreen, judge, parseExpectedFailures } from '../../../scripts/conformance/baseline';

const ok: Check[] = [{ id: 'a', status: 'SUCCESS' }];
const warned: Check[] = [
  { id: 'a', status: 'SUCCESS' },
  { id: 'b', status: 'WARNING', errorMessage: 'no session ID' },
];
/** A scenario that partly passes: `meta` passes, `discover` fails twice over, `listen` warns, `ack` was skipped. */
const stateless: Check[] = [
  { id: 'meta', status: 'SUCCESS' },
  { id: 'discover', status: 'SUCCESS' },
  { id: 'discover', status: 'FAILURE', errorMessage: 'Missing mandatory fields' },
  { id: 'listen', status: 'WARNING' },
  { id: 'ack', status: 'SKIPPED' },
  { id: 'note', status: 'INFO' },
];
const entry = (scenario: string, check?: string) => ({ scenario, ...(check ? { check } : {}), reason: 'why' });

describe('conformance baseline', () => {
  it('reads "server: []" as no expected failures, and refuses an entry under it', () => {
    expect(parseExpectedFailures('# none\nserver: []\n', 'none.yml')).toEqual([]);
    expect(() => parseExpectedFailures('server: []\n  - ping # why\n', 'none.yml')).toThrow('none.yml:2');
  });

  it('needs a reason on every server entry', () => {
    expect(parseExpectedFailures('server:\n  - ping # keygate has no ping\n', 'f.yml')).toEqual([
      { scenario: 'ping', reason: 'keygate has no ping' },
    ]);
    expect(() => parseExpectedFailures('server:\n  - ping\n', 'f.yml')).toThrow('needs a "# <reason>"');
    expect(() => parseExpectedFailures('server:\n  - server-stateless:meta\n', 'f.yml')).toThrow(
      'server-stateless:meta needs a "# <reason>"',
    );
  });

  it('reads a per-check entry, refuses "- scenario: check" (a YAML mapping) and a scenario listed both whole and per check', () => {
    expect(parseExpectedFailures('server:\n  - server-stateless:sep-2575-x-400 # v1 answers 400\n', 'f.yml')).toEqual([
      { scenario: 'server-stateless', check: 'sep-2575-x-400', reason: 'v1 answers 400' },
    ]);
    expect(() => parseExpectedFailures('server:\n  - server-stateless: sep-2575-x-400 # why\n', 'f.yml')).toThrow('f.yml:2');
    expect(() => parseExpectedFailures('server:\n  - caching # why\n  - caching:ttl # why\n', 'f.yml')).toThrow(
      'caching:ttl contradicts it',
    );
  });

  it('with no expected failures, a WARNING or a scenario without results is red', () => {
    const scenarios = ['ping', 'server-sse-polling', 'tools-list'];
    const verdict = judge(
      scenarios,
      new Map([
        ['ping', ok],
        ['server-sse-polling', warned],
      ]),
      [],
    );
    expect(verdict.unexpectedFailures).toEqual(['server-sse-polling', 'tools-list']);
    expect(isGreen(verdict)).toBe(false);
    expect(isGreen(judge(['ping'], new Map([['ping', ok]]), []))).toBe(true);
  });

  it('a whole-scenario entry must fail: one that passes is stale, one not a scored scenario is unknown', () => {
    const verdict = judge(
      ['ping', 'tools-list'],
      new Map([
        ['ping', ok],
        ['tools-list', warned],
      ]),
      [entry('ping'), entry('tools-list'), entry('tasks-lifecycle')],
    );
    expect(verdict.failedAsExpected).toEqual(['tools-list']);
    expect(verdict.unexpectedPasses).toEqual(['ping']);
    expect(verdict.unknownEntries).toEqual(['tasks-lifecycle']);
    expect(isGreen(verdict)).toBe(false);
  });

  it('per-check entries excuse only their checks; the worst occurrence of an id counts, as the suite judges', () => {
    const results = new Map([['server-stateless', stateless]]);
    const all = judge(['server-stateless'], results, [entry('server-stateless', 'discover'), entry('server-stateless', 'listen')]);
    expect(all.failedAsExpected).toEqual(['server-stateless']);
    expect(all.expectedFailures.map((e) => e.check)).toEqual(['discover', 'listen']);
    expect(isGreen(all)).toBe(true);

    const partial = judge(['server-stateless'], results, [entry('server-stateless', 'discover')]);
    expect(partial.unexpectedFailures).toEqual(['server-stateless:listen']);
    expect(isGreen(partial)).toBe(false);
  });

  it('a per-check entry whose check passes is stale; one whose check was skipped or never ran is tolerated', () => {
    const results = new Map([['server-stateless', stateless]]);
    const stale = judge(['server-stateless'], results, [
      entry('server-stateless', 'discover'),
      entry('server-stateless', 'listen'),
      entry('server-stateless', 'meta'),
    ]);
    expect(stale.unexpectedPasses).toEqual(['server-stateless:meta']);
    expect(isGreen(stale)).toBe(false);

    const tolerated = judge(['ping'], new Map([['ping', ok]]), [entry('ping', 'ack'), entry('ping', 'gone')]);
    expect(tolerated.passed).toEqual(['ping']);
    expect(tolerated.notReached.map((e) => e.check)).toEqual(['ack', 'gone']);
    expect(isGreen(tolerated)).toBe(true);
  });
});
