export {
  type CertificateFiles,
  makeTestCertificates,
  type TestCertificates,
  writeTestCertificates,
} from './certificates.js';
export { freePort } from './free-port.js';
export {
  type NatsServerOptions,
  type RunningNatsServer,
  startNatsServer,
  waitForPort,
} from './nats-server.js';
