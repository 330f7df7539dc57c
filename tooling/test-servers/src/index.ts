export { freePort } from './free-port.js';
export {
  type NatsServerOptions,
  type RunningNatsServer,
  startNatsServer,
  waitForPort,
} from './nats-server.js';
