// Validates Kubernetes objects against the API's schemas, as kubernetes-models
// (4.5.1, the built-in kinds) and @kubernetes-models/prometheus-operator (5.0.1,
// ServiceMonitor and its kin) hold them; run in a child process by
// kubernetes-schemas.ts, because the prometheus-operator models are ESM-only
// and this jest runs CommonJS. Reads a JSON array of objects on stdin and
// prints a JSON array of { kind, name, error }, error null for a valid object.
// A kind neither package models is an error, not a pass.
//
// Two checks: the models' compiled JSON schemas (types, required fields, enums,
// formats), and, since those allow any extra field where the API server's
// strict validation refuses it (a misspelt `readinessProbes` would be dropped
// or refused, never checked), each object type-checked as an object literal of
// the models' TypeScript interface, whose excess-property check names it.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The module that models apiVersion/kind, or null when the names cannot be one. */
function specifierOf(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return null;
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!/^[a-z0-9.]*$/.test(group) || !/^v[0-9a-z]+$/.test(version)) return null;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`;
  return `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
}

async function modelOf(specifier, kind) {
  try {
    const module = specifier.startsWith('@kubernetes-models/') ? await import(specifier) : require(specifier);
    return module[kind] ?? null;
  } catch {
    return null;
  }
}

async function schemaError(object) {
  const { apiVersion, kind } = object ?? {};
  const specifier = specifierOf(apiVersion, kind);
  const Model = specifier && (await modelOf(specifier, kind));
  if (!Model) return { specifier: null, error: `no schema for apiVersion ${apiVersion} kind ${kind}` };
  if (Model.apiVersion !== apiVersion || Model.kind !== kind) {
    return { specifier: null, error: `the schema found is ${Model.apiVersion} ${Model.kind}, not ${apiVersion} ${kind}` };
  }
  try {
    new Model(object).validate();
    return { specifier, error: null };
  } catch (error) {
    return { specifier, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Per object with a model, the first type error of `const object: I<Kind> = <the object>`, or null. */
function typeErrors(objects, specifiers) {
  const files = new Map();
  objects.forEach((object, index) => {
    if (!specifiers[index]) return;
    const source = `import type { I${object.kind} as T } from '${specifiers[index]}';\nexport const object: T = ${JSON.stringify(object, null, 1)};\n`;
    files.set(path.join(ROOT, `kubernetes-object-${index}.ts`), source);
  });
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
  const host = ts.createCompilerHost(options);
  const [getSourceFile, fileExists, readFile] = [host.getSourceFile, host.fileExists, host.readFile];
  host.getSourceFile = (name, language, ...rest) =>
    files.has(name) ? ts.createSourceFile(name, files.get(name), language) : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram([...files.keys()], options, host);
  return objects.map((_, index) => {
    const file = program.getSourceFile(path.join(ROOT, `kubernetes-object-${index}.ts`));
    const [first] = file ? ts.getPreEmitDiagnostics(program, file) : [];
    return first ? ts.flattenDiagnosticMessageText(first.messageText, ' ').slice(0, 240) : null;
  });
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);
const schemas = await Promise.all(objects.map(schemaError));
const types = typeErrors(
  objects,
  schemas.map(({ specifier }) => specifier),
);
const verdicts = objects.map((object, index) => ({
  kind: object?.kind ?? null,
  name: object?.metadata?.name ?? null,
  error: schemas[index].error ?? types[index],
}));
process.stdout.write(JSON.stringify(verdicts));
