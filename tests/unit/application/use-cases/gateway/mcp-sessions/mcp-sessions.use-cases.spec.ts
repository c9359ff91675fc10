import { randomUUID } from 'node:crypto';
import {
  AnnounceToolChanges,
  TOOLS_LIST_CHANGED,
} from '../../../../../../src/application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { EndMcpSession } from '../../../../../../src/application/use-cases/gateway/mcp-sessions/end-mcp-session.use-case';
import {
  MAX_CLIENT_FIELD_CHARS,
  OpenMcpSession,
} from '../../../../../../src/application/use-cases/gateway/mcp-sessions/open-mcp-session.use-case';
import { ResumeMcpSession } from '../../../../../../src/application/use-cases/gateway/mcp-sessions/resume-mcp-session.use-case';
import { ToolsDigest } from '../../../../../../src/application/use-cases/gateway/mcp-sessions/tools-digest';
import { FilterTools } from '../../../../../../src/application/use-cases/gateway/filter-tools/filter-tools.use-case';
import { ListTools } from '../../../../../../src/application/use-cases/gateway/list-tools/list-tools.use-case';
import { Sha256KeyHasher } from '../../../../../../src/adapters/crypto/sha256-key-hasher';
import { ValidationError } from '../../../../../../src/domain/errors';
import { SessionIdlePolicy } from '../../../../../../src/domain/mcp-session';
import { FakeExternalTools } from '../../../../../fakes/fake-external-tools';
import { FixedClock } from '../../../../../fakes/fixed-clock';
import { InMemoryMcpSessionRepository } from '../../../../../fakes/in-memory-mcp-session.repository';
import { InMemorySessionBusHub } from '../../../../../fakes/in-memory-session-bus';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';

/** 100 s idle: last-seen written at most every 10 s. */
const IDLE = new SessionIdlePolicy(100);

function makeSut(maxPerKey = 3) {
  const sessions = new InMemoryMcpSessionRepository();
  const clock = new FixedClock();
  const hasher = new Sha256KeyHasher();
  const external = new FakeExternalTools();
  const digest = new ToolsDigest(new ListTools(new FilterTools(), external), hasher);
  const hub = new InMemorySessionBusHub();
  const bus = hub.replica();
  let n = 0;
  const tokens = { generate: () => `${'t'.repeat(40)}${String(n++).padStart(3, '0')}` };
  const open = new OpenMcpSession(sessions, tokens, hasher, digest, clock, { idle: IDLE, maxPerKey });
  const resume = new ResumeMcpSession(sessions, hasher, clock, IDLE);
  const end = new EndMcpSession(sessions, clock);
  const announce = new AnnounceToolChanges(sessions, digest, bus, clock, IDLE);
  const key = { keyId: randomUUID(), userId: randomUUID(), scopes: ScopeSetMother.of('projects:read') };
  sessions.key(key.keyId, key.userId, key.scopes);
  const openFor = async (k = key) => {
    const opened = await open.execute({
      ...k,
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    hub.open(opened.session.id);
    return opened;
  };
  return { sessions, clock, external, hub, open, resume, end, announce, key, openFor };
}

describe('OpenMcpSession', () => {
  it('hands the token out once and stores only its SHA-256', async () => {
    const { sessions, openFor } = makeSut();
    const { token, session } = await openFor();
    expect(sessions.rows).toHaveLength(1);
    expect(sessions.rows[0].tokenHash).toBe(new Sha256KeyHasher().hash(token));
    expect(JSON.stringify(sessions.rows)).not.toContain(token);
    expect(session.protocolVersion).toBe('2025-11-25');
  });

  it.each([
    ['capabilities', { clientCapabilities: { big: 'x'.repeat(MAX_CLIENT_FIELD_CHARS) } }],
    ['clientInfo', { clientInfo: [] as unknown as Record<string, unknown> }],
  ])('refuses an oversized or malformed %s, storing nothing', async (field, override) => {
    const { sessions, open, key } = makeSut();
    const input = { ...key, protocolVersion: '2025-11-25', clientCapabilities: {}, clientInfo: { name: 'c' }, ...override };
    const error = await open.execute(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors[0].field).toBe(field);
    expect(sessions.rows).toEqual([]);
  });

  it("ends the least recently seen live sessions of the key past its limit, not other keys' sessions", async () => {
    const { resume, clock, openFor, sessions, key } = makeSut(2);
    const other = { keyId: randomUUID(), userId: key.userId, scopes: key.scopes };
    const theirs = await openFor(other);
    const first = await openFor();
    clock.advance(20_000);
    const second = await openFor();
    clock.advance(20_000);
    await resume.execute({ token: first.token, keyId: key.keyId }); // first is now seen later than second
    clock.advance(20_000);
    await openFor();
    expect(sessions.rows.find((r) => r.id === second.session.id)!.endedAt).not.toBeNull();
    expect(sessions.rows.find((r) => r.id === first.session.id)!.endedAt).toBeNull();
    expect(sessions.rows.find((r) => r.id === theirs.session.id)!.endedAt).toBeNull();
  });
});

describe('ResumeMcpSession', () => {
  it("finds the key's session, and nothing for a malformed, unknown or other key's id", async () => {
    const { resume, openFor, key } = makeSut();
    const { token, session } = await openFor();
    expect(await resume.execute({ token, keyId: key.keyId })).toMatchObject({ id: session.id });
    expect(await resume.execute({ token, keyId: randomUUID() })).toBeNull();
    expect(await resume.execute({ token: 'u'.repeat(43), keyId: key.keyId })).toBeNull();
    expect(await resume.execute({ token: `${token}x`, keyId: key.keyId })).toBeNull();
    expect(await resume.execute({ token: token.replace(/.$/, '!'), keyId: key.keyId })).toBeNull();
  });

  it('finds a session only on the endpoint that opened it', async () => {
    const { open, resume, key } = makeSut();
    const opened = (endpoint?: string) =>
      open.execute({ ...key, protocolVersion: '2025-11-25', clientCapabilities: {}, clientInfo: {}, endpoint });
    const onFiles = await opened('servers/files');
    const onMcp = await opened();
    expect(await resume.execute({ token: onFiles.token, keyId: key.keyId, endpoint: 'servers/files' })).toMatchObject({
      id: onFiles.session.id,
    });
    expect(await resume.execute({ token: onFiles.token, keyId: key.keyId })).toBeNull();
    expect(await resume.execute({ token: onFiles.token, keyId: key.keyId, endpoint: 'servers/docs' })).toBeNull();
    expect(await resume.execute({ token: onMcp.token, keyId: key.keyId, endpoint: 'servers/files' })).toBeNull();
    expect(await resume.execute({ token: onMcp.token, keyId: key.keyId })).toMatchObject({ id: onMcp.session.id });
  });

  it("ends a token's session at the expiry of the latest token that used it, never moving it earlier", async () => {
    const { open, resume, key, clock, sessions } = makeSut();
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    const { token, session } = await open.execute({
      ...key,
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      clientInfo: {},
      expiresAt: at(5000),
    });
    expect(session.expiresAt).toEqual(at(5000));
    // An older token changes nothing; a fresher one moves the end to its own expiry.
    expect(await resume.execute({ token, keyId: key.keyId, expiresAt: at(1000) })).toMatchObject({ expiresAt: at(5000) });
    expect(await resume.execute({ token, keyId: key.keyId, expiresAt: at(8000) })).toMatchObject({ expiresAt: at(8000) });
    expect(sessions.rows[0].expiresAt).toEqual(at(8000));
    clock.advance(7999);
    expect(await resume.execute({ token, keyId: key.keyId })).not.toBeNull();
    clock.advance(1);
    // Over, even for a still fresher token, and ended for every replica.
    expect(await resume.execute({ token, keyId: key.keyId, expiresAt: at(60_000) })).toBeNull();
    expect(sessions.rows[0].endedAt).not.toBeNull();
  });

  it('writes last-seen at most once per touch interval (idle / 10, at least 1 s)', async () => {
    const { resume, openFor, key, clock, sessions } = makeSut();
    const { token } = await openFor();
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect(await resume.execute({ token, keyId: key.keyId })).not.toBeNull();
    }
    expect(sessions.touches).toHaveLength(2);
    expect(new SessionIdlePolicy(1).touchMs).toBe(1000);
  });

  it('ends a session idle for longer than the idle time plus one touch interval, and never earlier', async () => {
    const { resume, openFor, key, clock, sessions } = makeSut();
    const { token, session } = await openFor();
    clock.advance(IDLE.idleMs + IDLE.touchMs - 1);
    expect(await resume.execute({ token, keyId: key.keyId })).not.toBeNull();
    clock.advance(IDLE.idleMs + IDLE.touchMs);
    expect(await resume.execute({ token, keyId: key.keyId })).toBeNull();
    expect(sessions.rows.find((r) => r.id === session.id)!.endedAt).not.toBeNull();
  });

  it('finds nothing once EndMcpSession ended it', async () => {
    const { resume, end, openFor, key } = makeSut();
    const { token, session } = await openFor();
    expect(await end.execute({ session })).toBe(true);
    expect(await end.execute({ session })).toBe(false);
    expect(await resume.execute({ token, keyId: key.keyId })).toBeNull();
  });
});

describe('AnnounceToolChanges', () => {
  it('tells each live session of the key once when its visible tools change, and not when they stay the same', async () => {
    const { announce, openFor, key, hub, sessions } = makeSut();
    const [one, two] = [await openFor(), await openFor()];
    expect(await announce.execute({ keyId: key.keyId })).toBe(0);
    sessions.key(key.keyId, key.userId, ScopeSetMother.of('projects:read', 'chat:read'));
    expect(await announce.execute({ keyId: key.keyId })).toBe(2);
    // A second replica hearing the same change finds the digests already moved.
    expect(await announce.execute({ keyId: key.keyId })).toBe(0);
    expect(hub.streams.get(one.session.id)).toEqual([TOOLS_LIST_CHANGED]);
    expect(hub.streams.get(two.session.id)).toEqual([TOOLS_LIST_CHANGED]);
  });

  it("follows the owner's upstream tools, for the keys that can see them", async () => {
    const { announce, openFor, key, hub, external, sessions } = makeSut();
    const blind = { keyId: randomUUID(), userId: key.userId, scopes: ScopeSetMother.of('chat:read') };
    sessions.key(blind.keyId, blind.userId, blind.scopes);
    const seeing = await openFor();
    const notSeeing = await openFor(blind);
    external.add(key.userId, 'files__read', ['projects:read']);
    expect(await announce.execute({ userId: key.userId })).toBe(1);
    expect(hub.streams.get(seeing.session.id)).toHaveLength(1);
    expect(hub.streams.get(notSeeing.session.id)).toEqual([]);
  });

  it('leaves ended and idle sessions alone', async () => {
    const { announce, openFor, key, hub, sessions, clock, end } = makeSut();
    const ended = await openFor();
    await end.execute({ session: ended.session });
    const idle = await openFor();
    clock.advance(IDLE.idleMs + IDLE.touchMs + 1);
    sessions.key(key.keyId, key.userId, ScopeSetMother.full());
    expect(await announce.execute({ keyId: key.keyId })).toBe(0);
    expect(hub.streams.get(idle.session.id)).toEqual([]);
  });
});
