import { fromSeed } from '@nats-io/nkeys';
import { decodeUtf8, encodeUtf8 } from '@slipstream/protocol';
import { InvalidArgumentError } from './errors.js';
import type { Auth, Authenticator, ConnectionOptions } from './types.js';

type Source<T> = T | (() => T);
const resolve = <T>(source: Source<T>): T =>
  typeof source === 'function' ? (source as () => T)() : source;

/** `user` / `pass` in CONNECT. Functions are evaluated at every (re)connect. */
export function usernamePasswordAuthenticator(
  user: Source<string>,
  pass?: Source<string>,
): Authenticator {
  return () => ({ user: resolve(user), pass: pass === undefined ? undefined : resolve(pass) });
}

export function tokenAuthenticator(token: Source<string>): Authenticator {
  return () => ({ auth_token: resolve(token) });
}

/** Signs the server nonce with an NKey seed (`SU...`). */
export function nkeyAuthenticator(seed: Source<Uint8Array | string>): Authenticator {
  return (nonce) => {
    const kp = fromSeed(toBytes(resolve(seed)));
    return { nkey: kp.getPublicKey(), sig: sign(kp, nonce) };
  };
}

/** A user JWT, with the seed that signs the nonce (omit the seed for bearer JWTs). */
export function jwtAuthenticator(
  jwt: Source<string>,
  seed?: Source<Uint8Array | string>,
): Authenticator {
  return (nonce) => {
    const token = resolve(jwt);
    if (seed === undefined) return { jwt: token };
    const kp = fromSeed(toBytes(resolve(seed)));
    return { jwt: token, nkey: kp.getPublicKey(), sig: sign(kp, nonce) };
  };
}

/** The contents of a `.creds` file (a user JWT and its seed between the usual markers). */
export function credsAuthenticator(creds: Source<Uint8Array | string>): Authenticator {
  return (nonce) => {
    const text = toText(resolve(creds));
    const jwt = /BEGIN NATS USER JWT-+\s+(\S+)/.exec(text)?.[1];
    const seed = /BEGIN USER NKEY SEED-+\s+(\S+)/.exec(text)?.[1];
    if (!jwt || !seed) throw new InvalidArgumentError('creds do not hold a user JWT and seed');
    return jwtAuthenticator(jwt, seed)(nonce);
  };
}

/** Merges what every configured authenticator returns; called for each connection attempt. */
export async function authenticate(
  options: ConnectionOptions,
  nonce: string | undefined,
): Promise<Auth> {
  const authenticators: Authenticator[] = [];
  if (options.user !== undefined)
    authenticators.push(usernamePasswordAuthenticator(options.user, options.pass));
  if (options.token !== undefined) authenticators.push(tokenAuthenticator(options.token));
  if (options.authenticator) {
    authenticators.push(
      ...(Array.isArray(options.authenticator) ? options.authenticator : [options.authenticator]),
    );
  }
  if (authenticators.length === 0) return undefined;
  const auth: Record<string, unknown> = {};
  for (const authenticator of authenticators) Object.assign(auth, await authenticator(nonce));
  return auth as Auth;
}

function sign(kp: ReturnType<typeof fromSeed>, nonce: string | undefined): string {
  if (!nonce) throw new InvalidArgumentError('the server sent no nonce to sign');
  return toBase64Url(kp.sign(encodeUtf8(nonce)));
}

function toBytes(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? encodeUtf8(value.trim()) : value;
}

function toText(value: Uint8Array | string): string {
  return typeof value === 'string' ? value : decodeUtf8(value);
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
