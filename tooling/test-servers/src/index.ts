export { type RunningAccountServer, startAccountServer } from './account-server.js';
export {
  type CertificateFiles,
  makeTestCertificates,
  type TestCertificates,
} from './certificates.js';
export { type FirstInfoCost, firstInfoCost } from './first-info.js';
export { freePort } from './free-port.js';
export {
  credsFile,
  encodeJwt,
  TestAccount,
  type TestAccountOptions,
  TestOperator,
  type TestSubjects,
  type TestUser,
  type TestUserOptions,
} from './jwt.js';
export {
  type NatsServerOptions,
  type RunningNatsServer,
  startNatsServer,
} from './nats-server.js';
export { cpuMeter, cpuSeconds, peakRssBytes, resetPeakRss, rssBytes } from './process-stats.js';
export { connectRawSocket } from './raw-socket.js';
export {
  type RunningProcess,
  runProcess,
  type ServerProcess,
  startServerProcess,
  waitForPort,
} from './server-process.js';
export { slipstreamServerBin, startSlipstreamServer } from './slipstream-server.js';
export {
  findSystemComponent,
  hideVariable,
  installCommand,
  MissingSystemComponentError,
  missingSystemComponents,
  requireSystemComponent,
  type SystemComponent,
  underCi,
} from './system-components.js';
