import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { openApiDocument } from '../src/adapters/http/openapi/openapi-document';

/** The console's API types, checked in: web/src imports them instead of spelling the wire shapes again. */
export const API_TYPES_FILE = join('web', 'src', 'api.generated.ts');

/** The types openapi-typescript makes of the document the service serves, as its CLI would write them. */
export async function apiTypes(): Promise<string> {
  return COMMENT_HEADER + astToString(await openapiTS(structuredClone(openApiDocument) as never));
}

/**
 * npm run openapi:types: rewrites web/src/api.generated.ts from the document;
 * with --check, only says whether the file (or the one named) is current,
 * exiting 1 when it is stale. Run from the compiled dist/: openapi-typescript
 * loads ESM-only packages, which Node requires but jest's module loader does not.
 */
async function main(argv: string[]): Promise<void> {
  const path = argv.find((arg) => !arg.startsWith('--')) ?? join(process.cwd(), API_TYPES_FILE);
  const types = await apiTypes();
  if (!argv.includes('--check')) {
    writeFileSync(path, types);
    return;
  }
  if (readFileSync(path, 'utf8') !== types) {
    process.stderr.write(`${path} is stale: run npm run openapi:types\n`);
    process.exit(1);
  }
}

if (require.main === module) void main(process.argv.slice(2));
