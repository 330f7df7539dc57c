/**
 * What a server running JetStream needs of its code, as one module that the server imports only
 * when the options enable JetStream: the JetStream API's schemas and the SQLite store are most of
 * what a start would otherwise load, and a server without JetStream has no use for them.
 */
export { answerJetStreamDisabled } from './jetstream/disabled-api.js';
export { JetStreamServer } from './jetstream/jetstream-server.js';
