import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { SERVICE_NODE_FLAGS } from '../../src/infrastructure/server/node-flags';
import { validateAgainstSchemas } from '../support/kubernetes-schemas';
import { describeWithProgram, installedAt } from '../support/system-program';

/**
 * deploy/kubernetes as `kubectl apply -k` would send it: each overlay rendered
 * by kubectl's Kustomize, every object validated against its kind's schema,
 * then what the schemas cannot say: probes on keygate's paths, the migration
 * job's command, variables keygate reads, secrets by reference only, a
 * drainable high-availability overlay, resources sized from the benchmark.
 */
const ROOT = path.join(__dirname, '..', '..');
const KUBECTL_CANDIDATES = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'];
const OVERLAYS = ['single-node', 'high-availability'];
/** Set from Secrets only: NODE_ENV=production refuses to start without the last four. */
const SECRET_VARIABLES = ['DATABASE_URL', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS', 'JWT_JWKS_URI', 'JWT_ISSUER', 'JWT_AUDIENCE'];
const REQUIRED_KINDS = [
  'ConfigMap',
  'Deployment',
  'HorizontalPodAutoscaler',
  'Job',
  'NetworkPolicy',
  'PodDisruptionBudget',
  'Service',
  'ServiceAccount',
  'ServiceMonitor',
];
/** graceful-shutdown.ts: in-flight requests get up to 10 s after SIGTERM, then the flushes run. */
const DRAIN_SECONDS = 10;

/** Rendered YAML, checked field by field. */
type K8sObject = Record<string, any>;

function render(overlay: string): K8sObject[] {
  const kubectl = KUBECTL_CANDIDATES.find((candidate) => existsSync(candidate));
  if (!kubectl) throw new Error(`kubectl is not installed at ${KUBECTL_CANDIDATES.join(' or ')} (apt-get install kubectl)`);
  const out = execFileSync(kubectl, ['kustomize', path.join(ROOT, 'deploy', 'kubernetes', 'overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((document) => document.toJSON() as K8sObject);
}

function only(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

/** The variables docs/configuration.md documents: the ones keygate reads. */
function documentedVariables(): Set<string> {
  const table = readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  return new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]));
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([name, value]) => labels?.[name] === value);
}

function mib(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

function flagMb(name: string): number {
  const flag = SERVICE_NODE_FLAGS.find((candidate) => candidate.startsWith(`--${name}=`));
  return Number(flag!.split('=')[1]);
}

function podSpecs(objects: K8sObject[]): { kind: string; spec: K8sObject; labels: Record<string, string> }[] {
  return ['Deployment', 'Job'].map((kind) => {
    const template = only(objects, kind).spec.template;
    return { kind, spec: template.spec, labels: template.metadata.labels };
  });
}

describeWithProgram(
  'kubectl',
  installedAt(KUBECTL_CANDIDATES),
  'apt-get install kubectl',
)('the Kubernetes manifests (deploy/kubernetes)', () => {
  // Rendered in beforeAll: jest collects a skipped describe's body too, where kubectl may be missing.
  const rendered: Record<string, K8sObject[]> = {};
  beforeAll(() => {
    for (const overlay of OVERLAYS) rendered[overlay] = render(overlay);
  });

  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    let objects: K8sObject[];
    beforeAll(() => {
      objects = rendered[overlay];
    });
    const deployment = () => only(objects, 'Deployment');
    const container = () => deployment().spec.template.spec.containers[0];
    const configMap = () => only(objects, 'ConfigMap');

    it('renders every object keygate needs, each valid against its kind schema (Kubernetes, Prometheus Operator)', () => {
      expect([...new Set(objects.map((object) => object.kind))].sort()).toEqual(REQUIRED_KINDS);
      const verdicts = validateAgainstSchemas(objects);
      expect(verdicts.filter((verdict) => verdict.error !== null)).toEqual([]);
      expect(verdicts).toHaveLength(objects.length);
      expect(objects.every((object) => object.metadata.namespace === 'keygate')).toBe(true);
    });

    it('runs the image the Dockerfile builds as its CMD does: the same entry point and Node flags, on PORT', () => {
      const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
      // The build stage compiles scripts/ too (tsconfig.build.json), and the image takes all of dist/.
      expect(dockerfile).toMatch(/^COPY scripts \.\/scripts$/m);
      expect(dockerfile).toMatch(/^COPY --from=build .*\/app\/dist \.\/dist$/m);
      expect(JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')).include).toContain('scripts');
      const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)![1];
      expect(container().command).toEqual(JSON.parse(cmd));
      expect(container().command).toEqual(['node', ...SERVICE_NODE_FLAGS, 'dist/src/infrastructure/server/main.js']);
      expect(existsSync(path.join(ROOT, 'dist', 'src', 'infrastructure', 'server', 'main.js'))).toBe(true);
      expect(container().ports).toEqual([{ name: 'http', containerPort: Number(configMap().data.PORT), protocol: 'TCP' }]);
      expect(configMap().data.NODE_ENV).toBe('production');
    });

    it('is ready on /readyz, alive on /healthz, given time to migrate at start, on the HTTP port', () => {
      const { readinessProbe, livenessProbe, startupProbe } = container();
      expect(readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(startupProbe.periodSeconds * startupProbe.failureThreshold).toBeGreaterThanOrEqual(60);
    });

    it('drains on SIGTERM: a preStop pause, then a grace period longer than the pause plus keygate shutdown', () => {
      const pause = container().lifecycle.preStop.exec.command;
      expect(pause[0]).toBe('sleep');
      const grace = deployment().spec.template.spec.terminationGracePeriodSeconds;
      expect(grace).toBeGreaterThanOrEqual(Number(pause[1]) + DRAIN_SECONDS + 10);
      expect(deployment().spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    });

    it('migrates in a Job running the script npm run migrate runs, built into dist/scripts', () => {
      const job = only(objects, 'Job').spec.template.spec;
      expect(job.containers[0].command).toEqual(['node', 'dist/scripts/migrate.js']);
      expect(job.containers[0].image).toBe(container().image);
      expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.migrate).toContain('node dist/scripts/migrate.js');
      expect(existsSync(path.join(ROOT, 'dist', 'scripts', 'migrate.js'))).toBe(true);
      expect(job.restartPolicy).toBe('Never');
    });

    it('sets only variables keygate reads (docs/configuration.md), and secrets by reference only', () => {
      const documented = documentedVariables();
      const configured = Object.keys(configMap().data);
      const names = [...configured, ...podSpecs(objects).flatMap(({ spec }) => spec.containers[0].env.map((e: K8sObject) => e.name))];
      expect(names.filter((name) => !documented.has(name))).toEqual([]);
      expect(configured.filter((name) => SECRET_VARIABLES.includes(name))).toEqual([]);
      expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
      for (const { spec } of podSpecs(objects)) {
        for (const variable of spec.containers[0].env) {
          expect(variable).toEqual({
            name: variable.name,
            valueFrom: { secretKeyRef: expect.objectContaining({ key: expect.any(String) }) },
          });
        }
      }
      const byName = new Map<string, K8sObject>(container().env.map((e: K8sObject) => [e.name, e.valueFrom.secretKeyRef]));
      for (const name of ['DATABASE_URL', 'SECRETS_KEY', 'JWT_JWKS_URI', 'JWT_ISSUER', 'JWT_AUDIENCE']) {
        expect(byName.get(name)).toMatchObject({ name: expect.any(String) });
        expect(byName.get(name)!.optional).toBeUndefined();
      }
      expect(container().envFrom).toEqual([{ configMapRef: { name: configMap().metadata.name } }]);
    });

    it('asks for the memory the benchmark measured, within a limit above the heap Node is given', () => {
      const latest = JSON.parse(readFileSync(path.join(ROOT, 'bench', 'results', 'latest.json'), 'utf8'));
      const scale = JSON.parse(readFileSync(path.join(ROOT, 'bench', 'results', 'scale.json'), 'utf8'));
      const { requests, limits } = container().resources;
      expect(requests.cpu).toBeDefined();
      expect(mib(requests.memory) * 1.048576).toBeGreaterThanOrEqual(latest.peakRss.serviceMb);
      const measuredPeak = Math.max(latest.peakRss.serviceAfterUpstreamCallsMb, scale.cachedKeysRss.peakRssMb);
      expect(mib(limits.memory) * 1.048576).toBeGreaterThan(measuredPeak * 1.25);
      expect(mib(limits.memory)).toBeGreaterThan(flagMb('max-old-space-size') + 3 * flagMb('max-semi-space-size'));
      const job = only(objects, 'Job').spec.template.spec.containers[0].resources;
      expect(job.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    });

    it('runs as the image user, not root, on a read-only root filesystem, with no capabilities', () => {
      const uid = Number(/useradd [^\n]*--uid (\d+)/.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))![1]);
      for (const { spec } of podSpecs(objects)) {
        expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uid });
        expect(spec.automountServiceAccountToken).toBe(false);
        expect(spec.containers[0].securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    });

    it('routes the Service and the ServiceMonitor to the server pods only, /metrics by the port name', () => {
      const service = only(objects, 'Service');
      const [server, migration] = podSpecs(objects);
      expect(matches(service.spec.selector, server.labels)).toBe(true);
      expect(matches(service.spec.selector, migration.labels)).toBe(false);
      expect(service.spec.ports.map((port: K8sObject) => port.targetPort)).toEqual(['http']);
      const monitor = only(objects, 'ServiceMonitor');
      expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
      expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: service.spec.ports[0].name, path: '/metrics' })]);
    });

    it('lets in the ingress controller and monitoring namespaces on the HTTP port; out PostgreSQL, DNS and https', () => {
      const policy = only(objects, 'NetworkPolicy').spec;
      for (const { labels } of podSpecs(objects)) expect(matches(policy.podSelector.matchLabels, labels)).toBe(true);
      expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
      const sources = policy.ingress.map((rule: K8sObject) => rule.from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name']);
      expect(sources.sort()).toEqual(['ingress-nginx', 'monitoring']);
      for (const rule of policy.ingress) expect(rule.ports).toEqual([{ port: container().ports[0].containerPort, protocol: 'TCP' }]);
      const egress = policy.egress.flatMap((rule: K8sObject) => rule.ports.map((port: K8sObject) => `${port.protocol}/${port.port}`));
      expect(egress.sort()).toEqual(['TCP/443', 'TCP/53', 'TCP/5432', 'UDP/53']);
    });

    it('keeps a replica up through a rolling update and lets a node drain (the PDB allows an eviction)', () => {
      const replicas = deployment().spec.replicas;
      const budget = only(objects, 'PodDisruptionBudget').spec;
      expect(matches(budget.selector.matchLabels, deployment().spec.template.metadata.labels)).toBe(true);
      const evictable = budget.minAvailable !== undefined ? replicas - budget.minAvailable : budget.maxUnavailable;
      expect(evictable).toBeGreaterThanOrEqual(1);
      const autoscaler = only(objects, 'HorizontalPodAutoscaler').spec;
      expect(autoscaler.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment().metadata.name });
      expect(autoscaler.minReplicas).toBe(replicas);
      expect(autoscaler.maxReplicas).toBeGreaterThan(autoscaler.minReplicas);
    });
  });

  it('high availability: three replicas or more, two kept through a drain, spread over nodes', () => {
    const objects = rendered['high-availability'];
    const deployment = only(objects, 'Deployment').spec;
    expect(deployment.replicas).toBeGreaterThanOrEqual(3);
    expect(only(objects, 'HorizontalPodAutoscaler').spec.minReplicas).toBeGreaterThanOrEqual(3);
    expect(only(objects, 'PodDisruptionBudget').spec).toEqual(expect.objectContaining({ minAvailable: 2 }));
    expect(only(objects, 'PodDisruptionBudget').spec.maxUnavailable).toBeUndefined();
    const spread = deployment.template.spec.topologySpreadConstraints;
    expect(spread).toEqual(
      expect.arrayContaining([expect.objectContaining({ topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule' })]),
    );
  });

  it('the CloudNativePG Cluster in docs/operations.md is the one they name: 3 instances, synchronous, enough connections', () => {
    const guide = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const block = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]).find((text) => /^kind: Cluster$/m.test(text));
    const cluster = parseAllDocuments(block!)[0].toJSON() as K8sObject;
    expect(cluster).toMatchObject({ apiVersion: 'postgresql.cnpg.io/v1', metadata: { namespace: 'keygate' } });
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.minSyncReplicas).toBeGreaterThanOrEqual(1);
    expect(cluster.spec.maxSyncReplicas).toBeGreaterThanOrEqual(cluster.spec.minSyncReplicas);
    const objects = rendered['high-availability'];
    const databaseUrl = only(objects, 'Deployment').spec.template.spec.containers[0].env.find((e: K8sObject) => e.name === 'DATABASE_URL');
    expect(databaseUrl.valueFrom.secretKeyRef).toEqual({ name: `${cluster.metadata.name}-app`, key: 'uri' });
    const egress = only(objects, 'NetworkPolicy').spec.egress.map((rule: K8sObject) => rule.to?.[0]?.podSelector?.matchLabels);
    expect(egress).toContainEqual({ 'cnpg.io/cluster': cluster.metadata.name });
    // A replica holds a pool of 10 (data-source.ts) and the change listener's connection; the Job one more.
    const needed = 11 * only(objects, 'HorizontalPodAutoscaler').spec.maxReplicas + 1;
    expect(Number(cluster.spec.postgresql.parameters.max_connections)).toBeGreaterThanOrEqual(needed + 20);
  });

  it('the schema check fails on an invalid object, an unknown field, an invalid ServiceMonitor and an unknown kind', () => {
    const objects = structuredClone(rendered['high-availability']);
    const deployment = only(objects, 'Deployment');
    deployment.spec.template.spec.containers[0].ports[0].containerPort = '8080';
    const job = only(objects, 'Job');
    delete job.spec.template.spec.containers;
    only(objects, 'ServiceMonitor').spec.endpoints = { port: 'http' };
    // A field the API server's strict validation refuses, which the JSON schemas alone let through.
    only(objects, 'Service').spec.selectors = only(objects, 'Service').spec.selector;
    objects.push({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'keygate-db' }, spec: { instances: 3 } });
    const failed = validateAgainstSchemas(objects).filter((verdict) => verdict.error !== null);
    expect(failed).toEqual([
      { kind: 'Service', name: 'keygate', error: expect.stringContaining(`'"selectors"' does not exist in type 'IServiceSpec'`) },
      { kind: 'Deployment', name: 'keygate', error: expect.stringContaining('containerPort must be integer') },
      { kind: 'Job', name: 'keygate-migrate', error: expect.stringContaining('must have required property containers') },
      { kind: 'ServiceMonitor', name: 'keygate', error: expect.stringContaining('endpoints must be array') },
      { kind: 'Cluster', name: 'keygate-db', error: 'no schema for apiVersion postgresql.cnpg.io/v1 kind Cluster' },
    ]);
  });
});
