import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTestCertificates, type TestCertificates } from '@slipstream/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../src/settings.js';
import { readTlsFiles, TlsSetupError } from '../src/tls-files.js';
import { thrown } from './thrown.js';

let files: TestCertificates;
beforeAll(async () => {
  files = await makeTestCertificates();
});
afterAll(async () => {
  await files?.remove();
});

const errorOf = (tls: Settings['tls']) => thrown(TlsSetupError, () => readTlsFiles(tls));

describe('readTlsFiles', () => {
  it('is off without TLS settings or with --tls=false', () => {
    expect(readTlsFiles(undefined)).toBeUndefined();
    expect(readTlsFiles({ enabled: false, cert: 'c.pem', key: 'k.pem' })).toBeUndefined();
  });

  it('reads the PEM files into the library options', async () => {
    const tls = readTlsFiles({
      cert: files.certFile,
      key: files.keyFile,
      ca: files.caFile,
      verify: true,
      timeout: 500,
    });
    expect(tls).toEqual({
      cert: await readFile(files.certFile, 'utf8'),
      key: await readFile(files.keyFile, 'utf8'),
      ca: await readFile(files.caFile, 'utf8'),
      verify: true,
      timeout: 500,
    });
    expect(readTlsFiles({ enabled: true, cert: files.certFile, key: files.keyFile })).toEqual({
      cert: expect.any(String),
      key: expect.any(String),
      verify: false,
    });
  });

  it.each([
    [{ enabled: true }, /server certificate: give --tlscert or cert_file/],
    [{ cert: 'c.pem' }, /private key .*: give --tlskey or key_file/],
    [{ verify: true, cert: 'c.pem', key: 'k.pem' }, /give --tlscacert or ca_file/],
  ] as const)('says which file is missing for %j', (tls, message) => {
    const error = errorOf(tls);
    expect(error.code).toBe('TLS_INCOMPLETE');
    expect(error.message).toMatch(message);
  });

  it('names a file it cannot read', () => {
    const missing = join(files.dir, 'nope.pem');
    const error = errorOf({ cert: files.certFile, key: missing });
    expect(error.code).toBe('TLS_FILE_UNREADABLE');
    expect(error.message).toBe(
      `cannot read the TLS private key "${missing}": ENOENT: no such file or directory`,
    );
    expect(errorOf({ cert: files.dir, key: files.keyFile }).message).toContain(
      `cannot read the TLS server certificate "${files.dir}": EISDIR`,
    );
  });

  it('names a file that does not hold what it should', () => {
    const swapped = errorOf({ cert: files.keyFile, key: files.keyFile });
    expect(swapped.code).toBe('TLS_FILE_INVALID');
    expect(swapped.message).toMatch(
      new RegExp(`^the TLS server certificate "${files.keyFile}" is not a valid PEM`),
    );
    expect(errorOf({ cert: files.certFile, key: files.certFile }).message).toMatch(
      new RegExp(`^the TLS private key "${files.certFile}" is not a valid PEM`),
    );
    expect(
      errorOf({ cert: files.certFile, key: files.keyFile, ca: files.keyFile }).message,
    ).toMatch(/^the TLS CA certificate .* is not a valid PEM/);
  });

  it('refuses a key that belongs to another certificate', () => {
    const error = errorOf({ cert: files.certFile, key: files.clientKeyFile });
    expect(error.code).toBe('TLS_FILE_INVALID');
    expect(error.message).toBe(
      `the private key "${files.clientKeyFile}" does not belong to the server certificate "${files.certFile}"`,
    );
  });
});
