import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { loadConsoleConfig } from '../../../src/infrastructure/config/console-config';
import {
  brokenLinks,
  documentedVariables,
  envNamesIn,
  headingAnchors,
  markdownFiles,
  relativeLinks,
  repoRoot,
  undocumentedOrRepeated,
} from '../../support/docs-check';

const configDir = path.join(repoRoot, 'src', 'infrastructure', 'config');

/** Every name the config sources spell, and every name loadConfig and loadConsoleConfig actually read from an empty environment. */
function variablesTheConfigReads(): string[] {
  const named = readdirSync(configDir)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => envNamesIn(readFileSync(path.join(configDir, file), 'utf8')));
  const read = new Set<string>();
  const recording = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    },
  );
  loadConfig(recording);
  loadConsoleConfig(recording, false);
  return [...new Set([...named, ...read])].sort();
}

describe('the documentation', () => {
  const files = markdownFiles();

  it('is README.md, bench/README.md and the pages under docs/', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/configuration.md', 'docs/architecture.md']));
  });

  it.each(files)('%s: every relative link reaches a file, and every #anchor a heading in it', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('README.md stays at most 250 lines', () => {
    expect(readFileSync(path.join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('docs/configuration.md has one table row for each environment variable the config reads', () => {
    const read = variablesTheConfigReads();
    expect(read.length).toBeGreaterThanOrEqual(45); // the extraction still finds them
    expect(read).toEqual(
      expect.arrayContaining(['PORT', 'DATABASE_URL', 'KEY_CACHE_MAX_ENTRIES', 'OIDC_ISSUER', 'MCP_MAX_STREAMS_PER_KEY']),
    );
    const documented = documentedVariables(readFileSync(path.join(repoRoot, 'docs', 'configuration.md'), 'utf8'));
    expect(undocumentedOrRepeated(read, documented)).toEqual([]);
    expect(undocumentedOrRepeated(documented, documented)).toEqual([]); // nor is any other row there twice
  });
});

describe('the documentation checks themselves', () => {
  it('make GitHub anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const anchors = headingAnchors(
      [
        '# keygate',
        '## The MCP gateway (`/mcp`)',
        '### `POST /oauth/introspect` (RFC 7662)',
        '## Decisions where the spec says "not shown"',
        '```sh',
        '# not a heading',
        '```',
        '## Notes',
        '## Notes',
        '<a id="kept"></a>',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'keygate',
      'the-mcp-gateway-mcp',
      'post-oauthintrospect-rfc-7662',
      'decisions-where-the-spec-says-not-shown',
      'notes',
      'notes-1',
      'kept',
    ]);
  });

  it('find relative links and leave out external ones and code', () => {
    const links = relativeLinks(
      [
        'See [a](docs/a.md#x), ![b](b.png "title") and [c](https://example.com).',
        '`[not](a-link.md)`',
        '```',
        '[not](either.md)',
        '```',
        '[ref]: ../up.md',
      ].join('\n'),
    );
    expect(links).toEqual([
      { line: 1, target: 'docs/a.md#x' },
      { line: 1, target: 'b.png' },
      { line: 6, target: '../up.md' },
    ]);
  });

  it('report a missing file, a missing heading and a link out of the repository', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'keygate-docs-'));
    try {
      mkdirSync(path.join(root, 'docs'));
      writeFileSync(path.join(root, 'docs', 'page.md'), '# Page\n\n## Two words\n');
      writeFileSync(
        path.join(root, 'README.md'),
        [
          '[ok](docs/page.md#two-words)',
          '[gone](docs/gone.md)',
          '[no heading](docs/page.md#three-words)',
          '[self](#nowhere)',
          '[out](../x.md)',
        ].join('\n'),
      );
      expect(brokenLinks('README.md', root)).toEqual([
        'README.md:2: docs/gone.md: no such file',
        'README.md:3: docs/page.md#three-words: no heading with that anchor',
        'README.md:4: #nowhere: no heading with that anchor',
        'README.md:5: ../x.md: leaves the repository',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('find the names the config spells, and report a variable missing from the table or in it twice', () => {
    expect(envNamesIn("const a = env.PORT; integer(env, 'MAX_X', 1, 0, 2); env['Y_Z']; other.NOT_ENV;")).toEqual(['MAX_X', 'PORT', 'Y_Z']);
    const documented = documentedVariables(
      ['| Variable | Default |', '|---|---|', '| `PORT` | `8080` |', '| `HOST` | x |', '| `HOST` | y |', 'prose `MAX_X`'].join('\n'),
    );
    expect(documented).toEqual(['PORT', 'HOST', 'HOST']);
    expect(undocumentedOrRepeated(['PORT', 'HOST', 'MAX_X'], documented)).toEqual([
      'HOST: in the table 2 times',
      'MAX_X: not in the table',
    ]);
  });
});
