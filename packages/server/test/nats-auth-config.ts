import type {
  AuthorizationOptions,
  PermissionsOptions,
  SubjectPermissionOptions,
  UserOptions,
} from '../src/index.js';

/**
 * nats-server config lines for our authorization options, so one test runs against both servers.
 * The config format takes JSON, so the block is our options renamed to nats-server's keys.
 */
export function natsAuthorizationConfig(
  authorization: AuthorizationOptions,
  authTimeoutMs: number | undefined,
  noAuthUser: string | undefined,
): string[] {
  const { user, pass, token, users, defaultPermissions } = authorization;
  const block = {
    user,
    password: pass,
    token,
    timeout: authTimeoutMs === undefined ? undefined : authTimeoutMs / 1000,
    users: users?.map(natsUserConfig),
    default_permissions: defaultPermissions && permissionsConfig(defaultPermissions),
  };
  const lines = [`authorization: ${JSON.stringify(block)}`];
  if (noAuthUser !== undefined) lines.push(`no_auth_user: ${JSON.stringify(noAuthUser)}`);
  return lines;
}

/** One entry of a nats-server `users` list. */
export function natsUserConfig(u: UserOptions): object {
  return {
    user: u.user,
    password: u.pass,
    nkey: u.nkey,
    permissions: u.permissions && permissionsConfig(u.permissions),
  };
}

function permissionsConfig(p: PermissionsOptions): object {
  const responses = p.allowResponses;
  return {
    publish: p.publish && subjectPermissionConfig(p.publish),
    subscribe: p.subscribe && subjectPermissionConfig(p.subscribe),
    allow_responses:
      typeof responses === 'object'
        ? {
            max: responses.max,
            expires: responses.expires === undefined ? undefined : `${responses.expires}ms`,
          }
        : responses,
  };
}

function subjectPermissionConfig(p: SubjectPermissionOptions): object {
  return { allow: p.allow, deny: p.deny };
}
