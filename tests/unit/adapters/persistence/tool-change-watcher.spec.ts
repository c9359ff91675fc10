import { ToolChange } from '../../../../src/application/use-cases/gateway/mcp-sessions/announce-tool-changes.use-case';
import { KEY_CHANGES_CHANNEL, MCP_SERVERS_CHANNEL } from '../../../../src/adapters/persistence/hot-path/change-listener';
import { ToolChangeWatcher } from '../../../../src/adapters/persistence/mcp-sessions/tool-change-watcher';

function makeSut(fail = false) {
  const announced: ToolChange[] = [];
  const logged: string[] = [];
  const watcher = new ToolChangeWatcher(
    async (change) => {
      announced.push(change);
      if (fail) throw new Error('database away');
    },
    (message) => logged.push(message),
  );
  const hear = (channel: string, payload: string) =>
    watcher
      .channels()
      .filter((c) => c.channel === channel)
      .forEach((c) => c.evict(payload));
  return { watcher, announced, logged, hear };
}

describe('ToolChangeWatcher', () => {
  it('announces a burst of changes to one key or owner once each', async () => {
    const { watcher, announced, hear } = makeSut();
    for (let i = 0; i < 5; i++) hear(KEY_CHANGES_CHANNEL, 'key-1');
    hear(MCP_SERVERS_CHANNEL, 'owner-1');
    hear(MCP_SERVERS_CHANNEL, 'owner-1');
    await watcher.settled();
    expect(announced).toEqual([{ keyId: 'key-1' }, { userId: 'owner-1' }]);
  });

  it('ignores a TRUNCATE (`*`), which names nothing to compare', async () => {
    const { watcher, announced, hear } = makeSut();
    hear(KEY_CHANGES_CHANNEL, '*');
    hear(MCP_SERVERS_CHANNEL, '*');
    await watcher.settled();
    expect(announced).toEqual([]);
  });

  it('logs a failed announcement and keeps going with the next', async () => {
    const { watcher, announced, logged, hear } = makeSut(true);
    hear(KEY_CHANGES_CHANNEL, 'a');
    hear(KEY_CHANGES_CHANNEL, 'b');
    await watcher.settled();
    expect(announced).toHaveLength(2);
    expect(logged).toHaveLength(2);
  });
});
