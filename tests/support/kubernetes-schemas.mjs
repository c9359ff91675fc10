// Validates Kubernetes objects against the API's schemas, as kubernetes-models
// (4.5.1, the built-in kinds) and @kubernetes-models/prometheus-operator (5.0.1,
// ServiceMonitor and its kin) compiled them; run in a child process by
// kubernetes-schemas.ts, because the prometheus-operator models are ESM-only
// and this jest runs CommonJS. Reads a JSON array of objects on stdin and
// prints a JSON array of { kind, name, error }, error null for a valid object.
// A kind neither package models is an error, not a pass.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The module that models apiVersion/kind, or null. */
async function modelOf(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return null;
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (!/^[a-z0-9.]*$/.test(group) || !/^v[0-9a-z]+$/.test(version)) return null;
  try {
    if (group === 'monitoring.coreos.com') {
      return (await import(`@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`))[kind] ?? null;
    }
    return require(`kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`)[kind] ?? null;
  } catch {
    return null;
  }
}

async function check(object) {
  const { apiVersion, kind, metadata } = object ?? {};
  const result = { kind: kind ?? null, name: metadata?.name ?? null, error: null };
  const Model = await modelOf(apiVersion, kind);
  if (!Model) return { ...result, error: `no schema for apiVersion ${apiVersion} kind ${kind}` };
  if (Model.apiVersion !== apiVersion || Model.kind !== kind) {
    return { ...result, error: `the schema found is ${Model.apiVersion} ${Model.kind}, not ${apiVersion} ${kind}` };
  }
  try {
    new Model(object).validate();
    return result;
  } catch (error) {
    return { ...result, error: error instanceof Error ? error.message : String(error) };
  }
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const objects = JSON.parse(input);
process.stdout.write(JSON.stringify(await Promise.all(objects.map(check))));
