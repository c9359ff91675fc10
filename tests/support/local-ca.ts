import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

/** A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and localhost. */
export interface LocalCa {
  /** PEM file of the CA, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** The CA's certificate (PEM), for a client of this process that must trust it. */
  caCert: string;
  serverKey: string;
  serverCert: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Made in JavaScript (selfsigned; node:crypto makes keys but not
 * certificates), so no openssl is needed: P-256 keys, valid for a day, the
 * server's for 127.0.0.1 and localhost only. The CA's file is written to `dir`.
 */
export async function makeLocalCa(dir: string): Promise<LocalCa> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'keygate test CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  const caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  return { caFile, caCert: ca.cert, serverKey: server.private, serverCert: server.cert };
}

let shared: Promise<LocalCa> | undefined;

/** One local CA per test process, its directory removed when the process exits. */
export function testCa(): Promise<LocalCa> {
  shared ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-tls-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    return makeLocalCa(dir);
  })();
  return shared;
}

/** An https server on 127.0.0.1 answering GET paths with the JSON `documents` give, counting requests per path. */
export async function serveJsonOverHttps(
  ca: LocalCa,
  documents: Record<string, () => unknown>,
): Promise<{ origin: string; hits: Map<string, number>; close(): Promise<void> }> {
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
