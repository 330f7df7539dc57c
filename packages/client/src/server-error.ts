import {
  AuthorizationError,
  type NatsError,
  PermissionViolationError,
  ServerError,
  StaleConnectionError,
  UserAuthenticationExpiredError,
} from './errors.js';

/**
 * Turns the text of a server `-ERR` into the matching error. Internal: only the connection needs
 * it, and the wording of server errors is not something users should match on.
 */
export function errorFromServer(text: string): NatsError {
  const lower = text.toLowerCase();
  if (lower.includes('permissions violation')) {
    const target = /(Publish|Subscription) to "([^"]+)"/.exec(text);
    const queue = /using queue "([^"]+)"/.exec(text);
    return new PermissionViolationError(
      text,
      target?.[1] === 'Subscription' ? 'subscription' : 'publish',
      target?.[2] ?? '',
      queue?.[1],
    );
  }
  if (
    lower.includes('user authentication expired') ||
    lower.includes('user authentication revoked')
  ) {
    return new UserAuthenticationExpiredError(text);
  }
  if (
    lower.includes('authorization violation') ||
    lower.includes('account authentication expired') ||
    lower.includes('authentication timeout')
  ) {
    return new AuthorizationError(text);
  }
  if (lower.includes('stale connection')) return new StaleConnectionError();
  return new ServerError(text);
}
