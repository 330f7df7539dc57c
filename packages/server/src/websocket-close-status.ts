import type { CloseReason } from './errors.js';

/**
 * The status of the close frame a server sends when it closes a WebSocket client, by why it
 * closes it, as nats-server 2.9.10 picks them (server/websocket.go wsEnqueueCloseMessage); the
 * frame's text is the reason itself. 1006 and 1015 are statuses RFC 6455 reserves for reporting,
 * never for a frame, but nats-server sends them, and clients show them as they come.
 */
export function closeStatusFor(reason: CloseReason): number {
  switch (reason) {
    case 'Client Closed':
      return 1000;
    case 'Server Shutdown':
      return 1001;
    case 'Parse Error':
    case 'Protocol Violation':
    case 'Bad Client Protocol Version':
      return 1002;
    case 'Write Error':
    case 'Read Error':
    case 'Stale Connection':
      return 1006;
    case 'Authentication Timeout':
    case 'Authentication Failure':
    case 'Authentication Expired':
    case 'Credentials Revoked':
    case 'Slow Consumer (Pending Bytes)':
    case 'Slow Consumer (Write Deadline)':
    case 'Maximum Connections Exceeded':
    case 'Maximum Account Connections Exceeded':
    case 'Maximum Subscriptions Exceeded':
    case 'Maximum Control Line Exceeded':
      return 1008;
    case 'Maximum Message Payload Exceeded':
      return 1009;
    case 'TLS Handshake Failure':
      return 1015;
    default:
      return 1011;
  }
}
