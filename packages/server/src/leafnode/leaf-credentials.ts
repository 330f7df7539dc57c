import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

type Nkeys = typeof import('@nats-io/nkeys');

/** A `.creds` file's armoured blocks: the user JWT first, then the seed (nats-server's credsRe). */
const ARMOURED = /\s*(?:-{3,}[^\n]*-{3,}\n)(.+)(?:\n\s*-{3,}[^\n]*-{3,}\n)/g;

/**
 * What a leaf node's CONNECT carries to log in with a `.creds` file: the user JWT, and the seed's
 * signature of the hub's nonce (unpadded base64url). The file is read at each connect, as
 * nats-server does, so a replaced file takes effect on the next reconnect.
 */
export async function signWithCredentials(
  file: string,
  nonce: string,
): Promise<{ jwt: string; sig: string }> {
  const text = await readFile(file, 'utf8');
  const blocks = [...text.matchAll(ARMOURED)].map((match) => match[1]!.trim());
  if (blocks.length < 2) throw new Error(`credentials file ${file} malformed`);
  const nkeys = createRequire(import.meta.url)('@nats-io/nkeys') as Nkeys;
  let pair: ReturnType<Nkeys['fromSeed']>;
  try {
    pair = nkeys.fromSeed(new TextEncoder().encode(blocks[1]));
  } catch {
    throw new Error(`credentials file ${file} has malformed seed`);
  }
  const sig = Buffer.from(pair.sign(new TextEncoder().encode(nonce))).toString('base64url');
  pair.clear();
  return { jwt: blocks[0]!, sig };
}
