import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

type Nkeys = typeof import('@nats-io/nkeys');
let nkeys: Nkeys | undefined;

/**
 * A public nkey's key pair (it throws for anything else). @nats-io/nkeys and the tweetnacl it
 * loads are required on the first key read, not at the start: most servers have no nkey or JWT
 * to check, and loading them was a noticeable part of the time to the first INFO.
 */
export function fromPublic(key: string): ReturnType<Nkeys['fromPublic']> {
  nkeys ??= createRequire(import.meta.url)('@nats-io/nkeys') as Nkeys;
  return nkeys.fromPublic(key);
}

/** Random bytes in a nonce; nats-server sends 11, as 15 base64url characters. */
const NONCE_BYTES = 11;

/** A fresh nonce for one connection's INFO, for nkey users to sign. */
export function newNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64url');
}

/** Whether `key` is a well-formed public nkey of the kind its first letter names (O, A, U). */
export function isPublicKey(key: unknown, prefix: 'O' | 'A' | 'U'): key is string {
  if (typeof key !== 'string' || !key.startsWith(prefix)) return false;
  try {
    fromPublic(key);
    return true;
  } catch {
    return false;
  }
}

/** Whether `key` is a well-formed public user nkey (`U…`, checksum included). */
export function isUserNkey(key: string): boolean {
  return isPublicKey(key, 'U');
}

/**
 * Whether `sig` is `nkey`'s Ed25519 signature of the nonce. As nats-server, the signature is
 * unpadded base64url, or else standard base64.
 */
export function nonceSigned(nkey: string, nonce: string, sig: string): boolean {
  const bytes = decodeSignature(sig);
  if (bytes === undefined) return false;
  try {
    return fromPublic(nkey).verify(Buffer.from(nonce), bytes);
  } catch {
    return false;
  }
}

function decodeSignature(sig: string): Uint8Array | undefined {
  if (/^[A-Za-z0-9_-]*$/.test(sig)) return Buffer.from(sig, 'base64url');
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(sig)) {
    return Buffer.from(sig, 'base64');
  }
  return undefined;
}
