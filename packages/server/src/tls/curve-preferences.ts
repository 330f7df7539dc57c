import { ServerError } from '../errors.js';

/**
 * Key exchange groups by the Go names nats-server's `curve_preferences` takes, with the names
 * OpenSSL (Node's `ecdhCurve`) knows them by.
 */
const GROUPS: Readonly<Record<string, string>> = {
  X25519: 'X25519',
  CurveP256: 'P-256',
  CurveP384: 'P-384',
  CurveP521: 'P-521',
};

/**
 * nats-server's choice when `curve_preferences` is not given (defaultCurvePreferences): all four,
 * fastest first. Node's own default would also offer X448 and finite-field groups, which Go has not.
 */
const DEFAULT_CURVES = ['X25519', 'CurveP256', 'CurveP384', 'CurveP521'];

/** Node's `ecdhCurve` string for the configured curves, in the configured order. */
export function ecdhCurve(curvePreferences: readonly string[] = DEFAULT_CURVES): string {
  if (curvePreferences.length === 0) {
    throw new ServerError('INVALID_OPTION', 'tls curvePreferences cannot be empty');
  }
  return curvePreferences
    .map((name) => {
      const group = GROUPS[name];
      if (group === undefined) {
        throw new ServerError(
          'INVALID_OPTION',
          `tls curvePreferences: unrecognized curve preference ${name} (known: ${Object.keys(GROUPS).join(', ')})`,
        );
      }
      return group;
    })
    .join(':');
}
