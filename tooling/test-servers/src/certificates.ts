import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface CertificateFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /**
   * A client certificate for verify_and_map: subject `CN=alice,OU=dev,O=Slipstream` (RFC 2253),
   * SAN e-mail alice@example.com, DNS alice.example.com and URI nats://alice.example.com.
   */
  aliceCertFile: string;
  aliceKeyFile: string;
  /** A second CA's certificate: it signed none of the above. */
  otherCaFile: string;
  /**
   * A cluster member's certificate for 127.0.0.1/localhost, for server and client use both: a
   * route's two ends each show theirs (nats-server verifies routes both ways).
   */
  memberCertFile: string;
  memberKeyFile: string;
}

const day = 24 * 60 * 60 * 1000;
type Extensions = NonNullable<Parameters<typeof generate>[1]>['extensions'];

/**
 * Writes a throwaway CA, a server certificate for 127.0.0.1/localhost and a client certificate
 * (both signed by that CA) as PEM files into `dir`. EC keys keep generation quick.
 */
async function writeTestCertificates(dir: string): Promise<CertificateFiles> {
  const validity = {
    notBeforeDate: new Date(Date.now() - day),
    notAfterDate: new Date(Date.now() + 2 * day),
  };
  const authority = (name: string) =>
    generate([{ name: 'commonName', value: name }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ...validity,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    });
  const ca = await authority('Slipstream Test CA');
  const other = await authority('Some Other CA');
  const issue = (name: string | Parameters<typeof generate>[0], extensions: Extensions) =>
    generate(typeof name === 'string' ? [{ name: 'commonName', value: name }] : name, {
      keyType: 'ec',
      algorithm: 'sha256',
      ...validity,
      ca: { key: ca.private, cert: ca.cert },
      extensions,
    });
  const server = await issue('localhost', [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  const member = await issue('localhost', [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  const client = await issue('client', [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
  ]);
  const alice = await issue(
    [
      { name: 'organizationName', value: 'Slipstream' },
      { shortName: 'OU', value: 'dev' },
      { name: 'commonName', value: 'alice' },
    ],
    [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 1, value: 'alice@example.com' },
          { type: 2, value: 'alice.example.com' },
          { type: 6, value: 'nats://alice.example.com' },
        ],
      },
    ],
  );
  const files: CertificateFiles = {
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server-key.pem'),
    clientCertFile: join(dir, 'client.pem'),
    clientKeyFile: join(dir, 'client-key.pem'),
    aliceCertFile: join(dir, 'alice.pem'),
    aliceKeyFile: join(dir, 'alice-key.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    memberCertFile: join(dir, 'member.pem'),
    memberKeyFile: join(dir, 'member-key.pem'),
  };
  await Promise.all([
    writeFile(files.caFile, ca.cert),
    writeFile(files.certFile, server.cert),
    writeFile(files.keyFile, server.private),
    writeFile(files.clientCertFile, client.cert),
    writeFile(files.clientKeyFile, client.private),
    writeFile(files.aliceCertFile, alice.cert),
    writeFile(files.aliceKeyFile, alice.private),
    writeFile(files.otherCaFile, other.cert),
    writeFile(files.memberCertFile, member.cert),
    writeFile(files.memberKeyFile, member.private),
  ]);
  return files;
}

export interface TestCertificates extends CertificateFiles {
  dir: string;
  /** The CA certificate as PEM text, for a client's `ca` option. */
  ca: string;
  remove(): Promise<void>;
}

/** The same certificates in a fresh temp directory, which `remove()` deletes. */
export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'slipstream-tls-'));
  const files = await writeTestCertificates(dir);
  return {
    ...files,
    dir,
    ca: await readFile(files.caFile, 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
