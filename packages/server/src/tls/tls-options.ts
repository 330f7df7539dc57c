/** TLS for client connections, as nats-server's `tls {}` block (PEM contents, not file names). */
export interface TlsOptions {
  /** Server certificate (chain), PEM. */
  cert: string | Uint8Array;
  /** The certificate's private key, PEM. */
  key: string | Uint8Array;
  /** CA certificates that client certificates must chain to, PEM. */
  ca?: string | Uint8Array;
  /** Require a client certificate signed by `ca` (nats-server `verify`). */
  verify?: boolean;
  /** Milliseconds a client has to finish the TLS handshake. Default 2000. */
  timeout?: number;
  /**
   * Verify the client certificate and take the client for the user of `authorization.users` it
   * names (SAN e-mail, DNS name or URI, or the subject DN such as `CN=alice,O=Acme`), with that
   * user's permissions; nats-server `verify_and_map`. Implies `verify`.
   */
  verifyAndMap?: boolean;
  /**
   * Only clients whose certificate's public key is one of these: hex SHA-256 of its DER
   * SubjectPublicKeyInfo (nats-server `pinned_certs`). Needs `verify`, or no certificate is asked.
   */
  pinnedCerts?: string[];
  /**
   * TLS 1.2 cipher suites by IANA name (`TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`, nats-server
   * `cipher_suites`); TLS 1.3 suites are always offered. Default: nats-server's six ECDHE AEAD suites.
   */
  cipherSuites?: string[];
  /**
   * Key exchange groups, preferred first, by nats-server's `curve_preferences` names: `X25519`,
   * `CurveP256`, `CurveP384`, `CurveP521`. Default: all four, in that order, as nats-server.
   */
  curvePreferences?: string[];
  /** Lowest TLS version accepted: `'1.2'` (default) or `'1.3'` (nats-server 2.10.21+ `min_version`). */
  minVersion?: '1.2' | '1.3';
  /** TLS handshake first, INFO after it, encrypted (nats-server 2.10.4+ `handshake_first`). */
  handshakeFirst?: boolean;
  /**
   * With `handshakeFirst`: milliseconds to wait for the client's handshake; a client silent that
   * long gets the INFO in the clear and upgrades the usual way (nats-server 2.10.4+
   * `handshake_first: "auto"` = 50, or a duration). Default: no fallback.
   */
  handshakeFirstFallback?: number;
}

/** TLS options with defaults applied and pins normalised. */
export interface ResolvedTlsOptions
  extends Omit<TlsOptions, 'pinnedCerts' | 'handshakeFirst' | 'handshakeFirstFallback'> {
  timeout: number;
  verify: boolean;
  verifyAndMap: boolean;
  pinnedCerts: ReadonlySet<string> | undefined;
  handshakeFirst: boolean;
  /** 0: no fallback. */
  handshakeFirstFallback: number;
}
