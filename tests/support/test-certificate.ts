import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificate {
  key: Buffer;
  cert: Buffer;
  /** The certificate's file: NODE_EXTRA_CA_CERTS for a service process that must trust it. */
  certFile: string;
}

let made: TestCertificate | undefined;

/**
 * A self-signed certificate for 127.0.0.1, made once per test process with
 * openssl (node cannot issue certificates) and removed when the process exits.
 */
export function testCertificate(): TestCertificate {
  if (made) return made;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keygate-tls-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  made = { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
  return made;
}
