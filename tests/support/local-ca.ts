import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import path from 'node:path';

/** A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and localhost. */
export interface LocalCa {
  /** PEM file of the CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  serverKey: string;
  serverCert: string;
}

export function hasOpenssl(): boolean {
  return spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Made with the openssl CLI in `dir` (node:crypto makes keys but not
 * certificates): P-256 keys, valid for a day, the server's for 127.0.0.1 and
 * localhost only.
 */
export function makeLocalCa(dir: string): LocalCa {
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '1', '-subj', '/CN=keygate test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-days', '1',
    '-extfile', at('server.ext'), '-out', at('server.pem'));
  return { caFile: at('ca.pem'), serverKey: readFileSync(at('server.key'), 'utf8'), serverCert: readFileSync(at('server.pem'), 'utf8') };
}

/** An https server on 127.0.0.1 answering GET paths with the JSON `documents` give, counting requests per path. */
export async function serveJsonOverHttps(ca: LocalCa, documents: Record<string, () => unknown>): Promise<{ origin: string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const server = https.createServer({ key: ca.serverKey, cert: ca.serverCert }, (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
    const document = documents[pathname];
    res.statusCode = document !== undefined ? 200 : 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(document !== undefined ? JSON.stringify(document()) : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
