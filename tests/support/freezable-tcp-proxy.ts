import net, { AddressInfo } from 'node:net';

export interface FreezableTcpProxy {
  port: number;
  /**
   * Stops carrying bytes on every connection open now, without closing any:
   * what a client sees when its server vanishes from the network. Later
   * connections are carried as before.
   */
  freeze(): void;
  close(): Promise<void>;
}

/** A TCP proxy on loopback to `targetPort`, for tests of connections that go silent. */
export async function startFreezableTcpProxy(targetPort: number): Promise<FreezableTcpProxy> {
  const open = new Set<{ client: net.Socket; server: net.Socket }>();
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const server = net.connect(targetPort, '127.0.0.1');
    const pair = { client, server };
    sockets.add(client).add(server);
    open.add(pair);
    client.pipe(server);
    server.pipe(client);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop).on('close', drop);
    server.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    freeze() {
      for (const { client, server } of open) {
        client.unpipe(server);
        server.unpipe(client);
        client.pause();
        server.pause();
      }
      open.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy(); // frozen ones too, or close would wait for them
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
