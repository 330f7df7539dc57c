import { TestOperator } from '@slipstream/test-servers';

/** nats-server's operator mode (memory resolver) and one user of an account it trusts. */
export interface OperatorSetup {
  /** nats-server config text for operator mode. */
  config: string;
  userJwt: string;
  userSeed: Uint8Array;
  /** The text of a .creds file for the user. */
  creds: string;
}

export function operatorSetup(options: { userExpiresInSeconds?: number } = {}): OperatorSetup {
  const operator = new TestOperator();
  const user = operator
    .account('acc')
    .user('user', { expiresInSeconds: options.userExpiresInSeconds });
  return { config: operator.config(), userJwt: user.jwt, userSeed: user.seed, creds: user.creds };
}
