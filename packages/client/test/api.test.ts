import { describe, expect, it } from 'vitest';
import * as browser from '../src/browser.js';
import * as node from '../src/node.js';

/** The runtime names the package exports; a change here is a change of the public API. */
const shared = [
  'AuthorizationError',
  'ClosedConnectionError',
  'ConnectionError',
  'DrainingConnectionError',
  'Empty',
  'InvalidArgumentError',
  'InvalidOperationError',
  'InvalidSubjectError',
  'Match',
  'MaxPayloadExceededError',
  'MsgHdrsImpl',
  'NatsError',
  'NoRespondersError',
  'OutboundBufferFullError',
  'PermissionViolationError',
  'ProtocolViolationError',
  'ReconnectBufferFullError',
  'RequestError',
  'RequestStrategy',
  'ServerError',
  'ServiceError',
  'ServiceErrorCodeHeader',
  'ServiceErrorHeader',
  'ServiceResponseType',
  'ServiceVerb',
  'SlowConsumerError',
  'StaleConnectionError',
  'TimeoutError',
  'UserAuthenticationExpiredError',
  'addService',
  'canonicalMIMEHeaderKey',
  'connect',
  'createInbox',
  'credsAuthenticator',
  'errors',
  'headers',
  'jwtAuthenticator',
  'nkeyAuthenticator',
  'nuid',
  'serviceClient',
  'tokenAuthenticator',
  'usernamePasswordAuthenticator',
  'websocketTransport',
];

describe('public API', () => {
  it('exports exactly the documented names from both builds', () => {
    expect(Object.keys(node).sort()).toEqual([...shared, 'tcpTransport'].sort());
    expect(Object.keys(browser).sort()).toEqual([...shared].sort());
  });

  it('keeps internals such as errorFromServer out', () => {
    expect('errorFromServer' in node).toBe(false);
    expect('errorFromServer' in browser).toBe(false);
  });
});
