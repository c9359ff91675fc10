import { scoredServerScenarios } from '../../../scripts/conformance/conformance-cli';

describe('conformance list', () => {
  it('takes the scenarios of 0.1.16 `list --server`, without their spec versions', () => {
    const listing =
      'Server scenarios (test against a server):\n  - server-initialize [2025-06-18,2025-11-25]\n  - ping [2025-06-18,2025-11-25]\n';
    expect(scoredServerScenarios(listing)).toEqual(['server-initialize', 'ping']);
  });

  it('takes only the scored server scenarios of a `--requirements` listing', () => {
    const listing = [
      'Required for 2026-07-28 (69 scenarios, frozen; run at the 2026-07-28 wire):',
      '',
      'Server scenarios (test against a server):',
      '  - server-stateless',
      '  - caching',
      '',
      'Client scenarios (test against a client):',
      '  - tools_call',
      '',
      'Run and reported, but never scored:',
      '  extension (1):',
      '    - tasks-lifecycle [server]',
      '',
    ].join('\n');
    expect(scoredServerScenarios(listing)).toEqual(['server-stateless', 'caching']);
  });
});
