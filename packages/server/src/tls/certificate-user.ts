import type { X509Certificate } from 'node:crypto';

/** One relative distinguished name: its attributes (usually one), types upper-cased. */
type Rdn = readonly { type: string; value: string }[];

/**
 * verify_and_map: the name in `users` that the client certificate stands for, looked up the way
 * nats-server 2.9.10 does (checkClientTLSCertSubject): the SAN e-mail addresses, then the SAN DNS
 * names, then the SAN URIs, each as a user name; then the subject as a distinguished name, equal
 * to a user name written as a DN (`CN=alice,OU=dev,O=Acme`, RFC 2253 order), first with its RDNs
 * in the same order, then in any order. Attribute types compare case-insensitively, values exactly.
 */
export function certificateUser(
  certificate: X509Certificate,
  users: ReadonlySet<string>,
): string | undefined {
  const alternatives = subjectAltNames(certificate.subjectAltName);
  for (const kind of ['email', 'DNS', 'URI']) {
    for (const name of alternatives.get(kind) ?? []) if (users.has(name)) return name;
  }
  // Node lists the subject one RDN a line, most significant (C, O) first: RFC 2253 reverses that.
  const subject = certificate.subject.split('\n').reverse().join(',');
  const certificateDn = parseDn(subject);
  if (!certificateDn) return undefined;
  const candidates: [string, Rdn[]][] = [];
  for (const user of users) {
    const dn = parseDn(user);
    if (dn) candidates.push([user, dn]);
  }
  const inOrder = candidates.find(([, dn]) => sameRdnSequence(dn, certificateDn));
  if (inOrder) return inOrder[0];
  return candidates.find(([, dn]) => sameRdnSet(dn, certificateDn))?.[0];
}

/** Node's `DNS:a, email:b, URI:c` (a value holding `, ` comes JSON-quoted), grouped by kind. */
function subjectAltNames(text: string | undefined): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const match of (text ?? '').matchAll(/([^:,\s][^:,]*):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)) {
    const [, kind, raw] = match as unknown as [string, string, string];
    const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    names.set(kind, [...(names.get(kind) ?? []), value]);
  }
  return names;
}

/**
 * An RFC 2253 distinguished name as RDNs, or undefined when it is not one. Both a configured user
 * name and Node's certificate subject (whose values OpenSSL escapes the RFC 2253 way) read alike.
 */
function parseDn(text: string): Rdn[] | undefined {
  const rdns: Rdn[] = [];
  for (const rdnText of splitUnescaped(text, ',')) {
    const rdn: { type: string; value: string }[] = [];
    for (const attribute of splitUnescaped(rdnText, '+')) {
      const equals = attribute.indexOf('=');
      if (equals <= 0) return undefined;
      const type = attribute.slice(0, equals).trim().toUpperCase();
      rdn.push({ type, value: unescapeValue(attribute.slice(equals + 1).trim()) });
    }
    rdns.push(rdn);
  }
  return rdns.length > 0 ? rdns : undefined;
}

/** Splits at `separator` where it is not escaped by a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === separator) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `\,` → `,` and `\4A` → the byte 0x4A (UTF-8 sequences decoded). */
function unescapeValue(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\' && /^[0-9a-fA-F]{2}$/.test(value.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      if (value[i] === '\\') i++;
      bytes.push(...Buffer.from(value[i] ?? '', 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function sameRdn(a: Rdn, b: Rdn): boolean {
  return (
    a.length === b.length && a.every((x) => b.some((y) => x.type === y.type && x.value === y.value))
  );
}

function sameRdnSequence(a: Rdn[], b: Rdn[]): boolean {
  return a.length === b.length && a.every((rdn, i) => sameRdn(rdn, b[i]!));
}

function sameRdnSet(a: Rdn[], b: Rdn[]): boolean {
  return (
    a.length === b.length &&
    a.every((x) => b.some((y) => sameRdn(x, y))) &&
    b.every((y) => a.some((x) => sameRdn(x, y)))
  );
}
