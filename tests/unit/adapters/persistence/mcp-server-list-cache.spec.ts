import { MCP_SERVERS_CHANNEL } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { McpServerListCache } from '../../../../src/adapters/persistence/hot-path/mcp-server-list-cache';
import { RecordLocation } from '../../../../src/domain/resource/resource-record';
import { InMemoryResourceStore } from '../../../fakes/in-memory-resource.store';

const SERVERS: RecordLocation = { resource: 'mcp_servers', parentId: null, subresource: null };
const PROJECTS: RecordLocation = { resource: 'projects', parentId: null, subresource: null };

function makeSut() {
  const inner = new InMemoryResourceStore();
  const reads = jest.spyOn(inner, 'list');
  const sut = new McpServerListCache(inner, 10);
  sut.lists.enable();
  return { sut, inner, reads };
}

describe('McpServerListCache', () => {
  it('serves the lists it held for staleAfterMs once the listener drops, then reads through', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const inner = new InMemoryResourceStore();
      const reads = jest.spyOn(inner, 'list');
      const sut = new McpServerListCache(inner, 10, 5000);
      sut.lists.enable();
      await sut.list('u1', SERVERS);
      sut.lists.disable();
      await sut.list('u1', SERVERS);
      expect(reads).toHaveBeenCalledTimes(1);
      jest.advanceTimersByTime(5000);
      await sut.list('u1', SERVERS);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('listens on the MCP-servers channel', () => {
    expect(makeSut().sut.lists.channel).toBe(MCP_SERVERS_CHANNEL);
  });

  it("reads each user's server list once while nothing changes", async () => {
    const { sut, inner, reads } = makeSut();
    await inner.create('u1', SERVERS, { name: 'one' });
    const first = await sut.list('u1', SERVERS);
    expect(await sut.list('u1', SERVERS)).toBe(first);
    await sut.list('u2', SERVERS);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('passes through every other listing', async () => {
    const { sut, reads } = makeSut();
    await sut.list('u1', PROJECTS);
    await sut.list('u1', PROJECTS);
    await sut.list('u1', SERVERS, undefined, 5);
    await sut.list('u1', SERVERS, undefined, 5);
    await sut.list('u1', SERVERS, undefined, undefined, 3);
    expect(reads).toHaveBeenCalledTimes(5);
    expect(reads).toHaveBeenLastCalledWith('u1', SERVERS, undefined, undefined, 3);
    expect(sut.lists.size).toBe(0);
  });

  it("drops a user's list when a server of theirs is written through it, or a notification names them", async () => {
    const { sut } = makeSut();
    const created = await sut.create('u1', SERVERS, { name: 'one' });
    expect(await sut.list('u1', SERVERS)).toHaveLength(1);
    await sut.update('u1', SERVERS, created.id, { name: 'renamed' });
    expect((await sut.list('u1', SERVERS))[0].data).toMatchObject({ name: 'renamed' });
    await sut.remove('u1', SERVERS, created.id);
    expect(await sut.list('u1', SERVERS)).toEqual([]);
    await sut.list('u2', SERVERS);
    sut.lists.evict('u2');
    expect(sut.lists.size).toBe(1);
  });

  it('keeps the lists when something other than a server is written', async () => {
    const { sut } = makeSut();
    await sut.list('u1', SERVERS);
    await sut.create('u1', PROJECTS, { name: 'p' });
    expect(sut.lists.size).toBe(1);
  });
});
