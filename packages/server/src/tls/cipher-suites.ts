import { ServerError } from '../errors.js';

/**
 * TLS 1.2 cipher suites by the IANA names nats-server's `cipher_suites` takes, with the OpenSSL
 * names Node's TLS wants. RC4 suites, which nats-server 2.9 still knows, are left out: OpenSSL 3
 * no longer offers them, and a config asking for them is refused rather than silently weakened.
 */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

/** TLS 1.3 suites: always all on, as in Go, which does not let a config choose among them. */
const TLS13_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
];

/** nats-server's TLS 1.2 choice when `cipher_suites` is not given (defaultCipherSuites). */
const DEFAULT_TLS12 = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
];

/** Node's `ciphers` string for the configured suites; a TLS 1.3 name in the list is accepted and changes nothing. */
export function opensslCiphers(cipherSuites: readonly string[] = DEFAULT_TLS12): {
  ciphers: string;
  /** No TLS 1.2 suite is left (the list named TLS 1.3 ones only): TLS 1.2 clients cannot connect. */
  tls13Only: boolean;
} {
  const tls12: string[] = [];
  for (const name of cipherSuites) {
    if (TLS13_SUITES.includes(name)) continue;
    const openssl = TLS12_SUITES[name];
    if (openssl === undefined) {
      throw new ServerError('INVALID_OPTION', `tls cipherSuites: unsupported cipher suite ${name}`);
    }
    tls12.push(openssl);
  }
  return { ciphers: [...TLS13_SUITES, ...tls12].join(':'), tls13Only: tls12.length === 0 };
}
