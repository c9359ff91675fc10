import http from 'node:http';
import { AddressInfo } from 'node:net';
import { changedTables, DbSnapshot } from '../../support/fuzz/db-snapshot';
import { FuzzApp, startFuzzApp } from '../../support/fuzz/fuzz-app';
import { check } from '../../support/fuzz/contract';
import { makeRequest } from '../../support/fuzz/fuzz-request';
import { makeKey } from '../../support/mcp-keys';
import { AuditQueue } from '../../../src/application/ports/audit-log.port';
import { AuditAction, AuditRecord } from '../../../src/domain/audit';
import { TOKENS } from '../../../src/infrastructure/di/tokens';

/** The fuzz suite's own checks catch what they are there to catch: a check that cannot fail proves nothing. */
let app: FuzzApp;
beforeAll(async () => {
  app = await startFuzzApp();
});
afterAll(() => app?.close());

describe('the database snapshot', () => {
  it('changes when a row is written, and not when only last_used_at moves', async () => {
    const key = await makeKey(app.t, []);
    const before = await app.snapshot();
    await app.t.db.dataSource.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [key.id]);
    expect(changedTables(before, await app.snapshot())).toEqual([]);
    await app.t.db.dataSource.query(`INSERT INTO agent_roles (name) VALUES ('snapshot-probe')`);
    await app.t.db.dataSource.query('UPDATE api_keys SET name = $2 WHERE id = $1', [key.id, 'renamed']);
    expect(changedTables(before, await app.snapshot()).sort()).toEqual(['agent_roles', 'api_keys']);
  });

  it('counts a committed tool-call event as written, and a recorded denial as nothing written', async () => {
    const queue = app.t.container.get<AuditQueue>(TOKENS.AuditQueue);
    const event = (action: AuditAction): AuditRecord => ({
      action,
      actor: { type: 'key', id: null },
      userId: null,
      keyId: null,
      target: { type: 'tool', id: 'projects' },
      occurredAt: new Date(),
      requestId: null,
      ip: null,
      details: {},
    });
    const before = await app.snapshot();
    await queue.append(event('tool.denied'));
    expect(changedTables(before, await app.snapshot())).toEqual([]);
    await queue.append(event('tool.called'));
    expect(changedTables(before, await app.snapshot())).toEqual(['audit_events']);
  });
});

describe('check', () => {
  /** A server answering whatever the test sets, and a database whose snapshot the test sets. */
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  let digest = 'a';
  const server = http.createServer((_req, res) => res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body));
  const target = () => ({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    snapshot: async (): Promise<DbSnapshot> => ({ t: digest }),
  });
  const request = makeRequest({ method: 'POST', path: '/x', headers: {}, credential: 'none', text: '{}' });
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fails a 5xx', async () => {
    answer = { status: 503, body: '{}' };
    await expect(check(target(), request)).rejects.toThrow(/status 503/);
  });

  it('fails a JSON-RPC internal error answered with 200', async () => {
    answer = { status: 200, body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}' };
    await expect(check(target(), request)).rejects.toThrow(/-32603/);
  });

  it('fails an answer over 64 KiB', async () => {
    answer = { status: 200, body: `"${'x'.repeat(64 * 1024)}"` };
    await expect(check(target(), request)).rejects.toThrow(/over 65536/);
  });

  it('fails a row written by a 4xx, and lets a 2xx write', async () => {
    const writing = { ...target(), snapshot: async () => ({ t: (digest += 'x') }) };
    answer = { status: 201, body: '{}' };
    await expect(check(writing, request)).resolves.toBeDefined();
    answer = { status: 400, body: '{}' };
    await expect(check(writing, request)).rejects.toThrow(/rows written by a 400: t/);
  });

  it('passes a 4xx that wrote nothing', async () => {
    answer = { status: 404, body: '{}' };
    await expect(check(target(), request)).resolves.toBeDefined();
  });
});
