import { isSubsetMatch } from '@slipstream/protocol';
import { isRevoked, verifiedClaims } from '../auth/jwt.js';
import { goQuote } from '../go-quote.js';

/** An activation JWT's own claims (nats-io/jwt v2 `Activation`). */
interface ActivationNats {
  type?: string;
  /** The subjects the token lets the importer take. */
  subject?: string;
  kind?: string;
  /** The exporting account, when one of its signing keys issued the token. */
  issuer_account?: string;
}

/** An import carrying an activation token, as an account JWT lists it. */
export interface TokenImport {
  /** The activation JWT. */
  token: string;
  /** The exporting account. */
  account: string;
  kind: 'stream' | 'service';
  /** The exporter's subject the import takes. */
  subject: string;
}

/**
 * Why the token of an importing account's import is not one (nats-io/jwt's import validation,
 * which makes nats-server refuse the whole account JWT): not a signed activation, not issued by
 * (or for) the exporting account, for another importer or kind, or not covering the subject.
 * Expiry is not checked here: an expired token only leaves the import out.
 */
export function activationProblem(importer: string, i: TokenImport): string | undefined {
  const activation = verifiedClaims<ActivationNats>(i.token, null);
  if (typeof activation === 'string' || activation.nats.type !== 'activation') {
    return `import ${goQuote(i.subject)} contains an invalid activation token`;
  }
  const { iss, sub, nats } = activation;
  if (iss !== i.account && nats.issuer_account !== i.account) {
    return `activation token doesn't match account for import ${goQuote(i.subject)}`;
  }
  if (sub !== importer) {
    return `activation token doesn't match account it is being included in, ${goQuote(i.subject)}`;
  }
  if (nats.kind !== i.kind) {
    return `mismatch between token import type ${nats.kind ?? ''} and type of import ${i.kind}`;
  }
  if (typeof nats.subject !== 'string' || !isSubsetMatch(i.subject, nats.subject)) {
    return `activation token import subject ${goQuote(nats.subject ?? '')} doesn't match import ${goQuote(i.subject)}`;
  }
  return undefined;
}

/** When the activation token expires (ms since the epoch); undefined: never, or not a JWT. */
export function activationExpiry(token: string): number | undefined {
  const activation = verifiedClaims<ActivationNats>(token, null);
  return typeof activation === 'string' || !activation.exp ? undefined : activation.exp * 1000;
}

/**
 * Whether a valid token (see {@link activationProblem}) admits the import to a private export, as
 * nats-server 2.9.10's checkActivation: unexpired, issued by the exporter's key or one of its
 * `signingKeys`, and not revoked by the export's `revocations`.
 */
export function activationGranted(
  token: string,
  exporter: { key: string; signingKeys: readonly string[] },
  revocations: Readonly<Record<string, number>> | undefined,
): boolean {
  const activation = verifiedClaims<ActivationNats>(token);
  if (typeof activation === 'string') return false;
  const { iss, sub, iat, nats } = activation;
  if (nats.issuer_account !== undefined && nats.issuer_account !== '') {
    if (nats.issuer_account !== exporter.key) return false;
    if (iss !== exporter.key && !exporter.signingKeys.includes(iss)) return false;
  }
  return !isRevoked(revocations, sub, iat ?? 0);
}
