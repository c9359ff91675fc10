import { honouredFlags, listenFilterOf } from '../../../../../src/adapters/mcp/modern/listen-filter';
import {
  KEYGATE_CAPABILITIES,
  UNKNOWN_UPSTREAM_CAPABILITIES,
} from '../../../../../src/application/use-cases/gateway/upstream-view/endpoint-capabilities';

describe('listenFilterOf', () => {
  it('keeps only what was asked for: true flags and each URI once', () => {
    expect(
      listenFilterOf(
        { notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['a://1', 'a://1', 'b://2'] } },
        10,
      ),
    ).toEqual({ toolsListChanged: true, resourceSubscriptions: ['a://1', 'b://2'] });
    expect(listenFilterOf({ notifications: {} }, 10)).toEqual({});
    expect(listenFilterOf({ notifications: { resourceSubscriptions: [] } }, 10)).toEqual({});
  });

  it.each([
    ['no params', undefined],
    ['no notifications', { _meta: {} }],
    ['notifications not an object', { notifications: [true] }],
    ['a flag that is not a boolean', { notifications: { toolsListChanged: 'yes' } }],
    ['URIs that are not an array', { notifications: { resourceSubscriptions: 'a://1' } }],
    ['an empty URI', { notifications: { resourceSubscriptions: [''] } }],
    ['a URI that is not a string', { notifications: { resourceSubscriptions: [7] } }],
    ['a URI longer than resources/read takes', { notifications: { resourceSubscriptions: ['x'.repeat(8193)] } }],
  ])('refuses %s', (_name, params) => {
    expect(listenFilterOf(params, 10)).toEqual({ refused: expect.any(String) });
  });

  it('refuses more URIs than the bound (MCP_MAX_SUBSCRIPTIONS_PER_SESSION), counted once each', () => {
    expect(listenFilterOf({ notifications: { resourceSubscriptions: ['a://1', 'a://2', 'a://3'] } }, 2)).toEqual({
      refused: expect.stringContaining('MCP_MAX_SUBSCRIPTIONS_PER_SESSION'),
    });
    expect(listenFilterOf({ notifications: { resourceSubscriptions: ['a://1', 'a://2', 'a://1'] } }, 2)).toEqual({
      resourceSubscriptions: ['a://1', 'a://2'],
    });
  });
});

describe('honouredFlags', () => {
  const all = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['a://1'] } as const;

  it('honours on /mcp every flag and the URIs (keygate declares them all)', () => {
    const { flags, uris } = honouredFlags({ ...all, resourceSubscriptions: ['a://1'] }, KEYGATE_CAPABILITIES);
    expect([...flags]).toEqual(['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']);
    expect(uris).toEqual(['a://1']);
  });

  it('drops what the endpoint does not declare: an upstream without prompts, resources or subscribe', () => {
    const { flags, uris } = honouredFlags({ ...all, resourceSubscriptions: ['a://1'] }, UNKNOWN_UPSTREAM_CAPABILITIES);
    expect([...flags]).toEqual(['toolsListChanged']);
    expect(uris).toEqual([]);
    const listOnly = honouredFlags(
      { ...all, resourceSubscriptions: ['a://1'] },
      { tools: { listChanged: true }, resources: { listChanged: true }, prompts: {} },
    );
    expect([...listOnly.flags]).toEqual(['toolsListChanged', 'resourcesListChanged']);
    expect(listOnly.uris).toEqual([]);
  });
});
