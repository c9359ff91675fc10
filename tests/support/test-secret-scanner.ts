import { generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import { AddressInfo } from 'node:net';

export interface ScannerKey {
  identifier: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function scannerKey(identifier = randomBytes(32).toString('hex')): ScannerKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { identifier, privateKey, publicKey };
}

/**
 * A secret scanner for tests: P-256 key pairs made here, whose public halves
 * are served over HTTP on loopback in GitHub's format
 * (`{"public_keys": [{"key_identifier", "key", "is_current"}]}`), and that
 * signs reports as GitHub does.
 */
export class TestSecretScanner {
  /** Listed keys; the last one is current. */
  readonly keys: ScannerKey[] = [scannerKey()];
  requests = 0;
  /** While set, the list answers this status instead. */
  failWith: number | null = null;
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((_req, res) => {
      this.requests += 1;
      if (this.failWith !== null) {
        res.statusCode = this.failWith;
        res.end();
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(this.keyList()));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/meta/public_keys/secret_scanning`;
    return this;
  }

  /** The key list document the scanner serves (for a test that serves it elsewhere, over https say). */
  keyList(): { public_keys: object[] } {
    return {
      public_keys: this.keys.map((k, i) => ({
        key_identifier: k.identifier,
        key: k.publicKey.export({ type: 'spki', format: 'pem' }),
        is_current: i === this.keys.length - 1,
      })),
    };
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  get current(): ScannerKey {
    return this.keys[this.keys.length - 1];
  }

  /** The two headers GitHub sends with a report: the key's identifier and the base64 DER signature of the exact body. */
  headers(body: string | Buffer, key: ScannerKey = this.current): Record<string, string> {
    return {
      'Github-Public-Key-Identifier': key.identifier,
      'Github-Public-Key-Signature': sign('sha256', Buffer.from(body), key.privateKey).toString('base64'),
    };
  }
}
