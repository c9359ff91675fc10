import { SubscriptionLimitError, UnknownResourceError, UpstreamFailedError } from '../../../../../../src/domain/errors';
import { topLevel } from '../../../../../../src/domain/resource/resource-record';
import { InMemoryResourceStore } from '../../../../../fakes/in-memory-resource.store';
import { FakeContentBehaviour } from '../../../../../fakes/fake-upstream-content';
import { ScopeSetMother } from '../../../../../mothers/scope-set.mother';
import { makeUpstreamContent } from '../../../../../support/upstream-content-use-cases';

const USER = 'alice';
const SESSION = 'session-1';
const NOTES: FakeContentBehaviour = {
  contents: {
    'file:///notes/a.txt': 'A',
    'file:///notes/b.txt': 'B',
    'file:///notes/c.txt': 'C',
    'file:///notes/d.txt': 'D',
    'file:///secret/s.txt': 'S',
  },
};

function makeSut() {
  const store = new InMemoryResourceStore();
  const { useCases, upstream, subscriptions } = makeUpstreamContent(store);
  const register = async (name: string, behaviour: FakeContentBehaviour = NOTES) => {
    const url = `https://${name}.example/mcp`;
    upstream.serve(url, behaviour);
    await store.create(USER, topLevel('mcp_servers'), { name, url, resource_scopes: { 'file:///secret/{name}': ['chat:read'] } });
    return url;
  };
  const input = (uri: string) => ({ userId: USER, scopes: ScopeSetMother.of('mcp_servers:read'), uri, clientSessionId: SESSION });
  return { useCases, upstream, subscriptions, register, input };
}

describe('resources/subscribe and unsubscribe', () => {
  it('routes a keygate URI to its server, records it, has the stream holder listen to that server, then forwards the upstream URI', async () => {
    const { useCases, upstream, subscriptions, register, input } = makeSut();
    const url = await register('files');
    const forwardedWhenTold: number[] = [];
    subscriptions.onFollowing = () => forwardedWhenTold.push(upstream.follows.length);
    await expect(useCases.subscribe.execute(input('keygate://files/file:///notes/a.txt'))).resolves.toEqual({});
    expect(upstream.follows).toEqual([{ url, uri: 'file:///notes/a.txt', on: true }]);
    expect(subscriptions.rows.get(SESSION)?.size).toBe(1);
    expect(subscriptions.told).toEqual([expect.stringMatching(new RegExp(`^${SESSION} [0-9a-f-]{36}$`))]);
    // An update the upstream sends right after answering must find its stream open.
    expect(forwardedWhenTold).toEqual([0]);
  });

  it('refuses a hidden, foreign or malformed URI as read does, without contacting the upstream or recording anything', async () => {
    const { useCases, upstream, subscriptions, register, input } = makeSut();
    await register('files');
    for (const uri of ['keygate://files/file:///secret/s.txt', 'keygate://other/file:///notes/a.txt', 'file:///notes/a.txt']) {
      await expect(useCases.subscribe.execute(input(uri))).rejects.toEqual(new UnknownResourceError(uri));
    }
    expect(upstream.contacts).toEqual([]);
    expect(subscriptions.rows.size).toBe(0);
  });

  it('refuses past the per-session bound before any upstream contact', async () => {
    const { useCases, upstream, register, input } = makeSut();
    await register('files');
    for (const name of ['a', 'b', 'c']) await useCases.subscribe.execute(input(`keygate://files/file:///notes/${name}.txt`));
    const contacts = upstream.contacts.length;
    await expect(useCases.subscribe.execute(input('keygate://files/file:///notes/d.txt'))).rejects.toBeInstanceOf(SubscriptionLimitError);
    expect(upstream.contacts.length).toBe(contacts);
  });

  it('takes the record back when the upstream refuses, or does not offer subscriptions', async () => {
    const { useCases, subscriptions, register, input } = makeSut();
    await register('files');
    await register('plain', { ...NOTES, subscribe: false });
    await expect(useCases.subscribe.execute(input('keygate://files/file:///notes/missing.txt'))).rejects.toBeInstanceOf(
      UnknownResourceError,
    );
    await expect(useCases.subscribe.execute(input('keygate://plain/file:///notes/a.txt'))).rejects.toEqual(
      new UpstreamFailedError('The MCP server plain does not offer resources/subscribe'),
    );
    expect(subscriptions.rows.get(SESSION)?.size ?? 0).toBe(0);
    // The holder was asked to listen only to the one that offers subscriptions (it listens to every held upstream anyway).
    expect(subscriptions.told).toHaveLength(1);
  });

  it('unsubscribe is idempotent and forwards only a subscription the session held', async () => {
    const { useCases, upstream, subscriptions, register, input } = makeSut();
    const url = await register('files');
    await useCases.subscribe.execute(input('keygate://files/file:///notes/a.txt'));
    const { userId, uri, clientSessionId } = input('keygate://files/file:///notes/a.txt');
    await expect(useCases.unsubscribe.execute({ userId, uri, clientSessionId })).resolves.toEqual({});
    await expect(useCases.unsubscribe.execute({ userId, uri, clientSessionId })).resolves.toEqual({});
    await expect(useCases.unsubscribe.execute({ userId, uri: 'keygate://files/file:///secret/s.txt', clientSessionId })).resolves.toEqual(
      {},
    );
    expect(upstream.follows).toEqual([
      { url, uri: 'file:///notes/a.txt', on: true },
      { url, uri: 'file:///notes/a.txt', on: false },
    ]);
    expect(subscriptions.rows.get(SESSION)?.size).toBe(0);
  });
});
