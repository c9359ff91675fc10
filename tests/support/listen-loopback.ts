import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';

export interface Loopback {
  /** `http://127.0.0.1:<port>` (https for a TLS server), without a trailing slash. */
  url: string;
  port: number;
  /** Ends the open connections too (keep-alive sockets, streams a test left open), then stops listening. */
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1 at a port the system picks: a test server no other process can reach or collide with. */
export async function listenLoopback(server: http.Server | https.Server): Promise<Loopback> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
