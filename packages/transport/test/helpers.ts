import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TransportConnection } from '../src/index.js';

/** A self-signed certificate for 127.0.0.1 / localhost, made with the system openssl. */
export function selfSignedCert(): { dir: string; certFile: string; keyFile: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'slipstream-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { dir, certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}

/** Collects what a connection receives until `text` shows up (bounded by the test timeout). */
export function readUntil(conn: TransportConnection, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const decoder = new TextDecoder();
    conn.listen({
      data: (chunk) => {
        seen += decoder.decode(chunk);
        if (seen.includes(text)) resolve(seen);
      },
      closed: (error) => reject(error ?? new Error(`closed before ${text}; got ${seen}`)),
    });
  });
}

export const bytes = (s: string) => new TextEncoder().encode(s);
