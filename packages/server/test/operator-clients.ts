import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromSeed } from '@nats-io/nkeys';
import type { TestOperator, TestUser } from '@slipstream/test-servers';
import { onTestFinished } from 'vitest';
import type { RawClient } from './raw-client.js';
import type { RunningTarget } from './targets.js';

export const violation = "-ERR 'Authorization Violation'\r\n";

export interface LoginOptions {
  /** Sign the nonce (default); false: leave the signature out. */
  sign?: boolean;
  /** CONNECT's protocol: 1 takes async INFO. */
  protocol?: number;
}

/** CONNECT with the user's JWT and, unless left out, its signature of this connection's nonce. */
export function connectLine(client: RawClient, user: TestUser, options: LoginOptions = {}): string {
  const nonce = client.info().nonce as string;
  const sig = Buffer.from(fromSeed(user.seed).sign(Buffer.from(nonce))).toString('base64url');
  const fields = {
    verbose: false,
    pedantic: false,
    jwt: user.jwt,
    ...(options.sign === false ? {} : { sig }),
    ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
  };
  return `CONNECT ${JSON.stringify(fields)}\r\n`;
}

/**
 * A new temporary directory holding the operator's account JWTs, as a full resolver reads them;
 * removed when the test that asked for it ends.
 */
export function accountsDir(operator: TestOperator): string {
  const dir = mkdtempSync(join(tmpdir(), 'jwt-resolver-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  operator.writeAccounts(dir);
  return dir;
}

/** Raw clients of an operator-mode server, opened by `connect` (closedAfterEach's). */
export function operatorClients(connect: (server: RunningTarget) => Promise<RawClient>) {
  async function login(server: RunningTarget, user: TestUser, options: LoginOptions = {}) {
    const client = await connect(server);
    await client.send(connectLine(client, user, options));
    return client;
  }
  return {
    login,
    /** What the client got after INFO, once a PING sent now is answered. */
    async answered(client: RawClient) {
      await client.sync();
      return client.afterInfo();
    },
    /** What a login the server closes got after INFO. */
    async refused(server: RunningTarget, user: TestUser, options: LoginOptions = {}) {
      const client = await login(server, user, options);
      await client.send('PING\r\n');
      await client.waitClosed();
      return client.afterInfo();
    },
    /** The answer of the system account to an account JWT pushed on `subject` by a SYS user. */
    async pushed(server: RunningTarget, operator: TestOperator, subject: string, jwt: string) {
      const admin = await login(server, operator.system.user('admin'));
      await admin.send(
        `SUB _INBOX.push 1\r\nPUB ${subject} _INBOX.push ${jwt.length}\r\n${jwt}\r\n`,
      );
      const pattern = /MSG _INBOX\.push 1 +\d+\r\n(.*)\r\n/;
      return JSON.parse(pattern.exec(await admin.waitFor(pattern))![1]!);
    },
  };
}
