/**
 * What monitoring shows alike of a route and a leaf node connection (/routez, /leafz): its
 * traffic and the interest the other server announced.
 */
export interface LinkTrafficView {
  readonly inMsgs: number;
  readonly outMsgs: number;
  readonly inBytes: number;
  readonly outBytes: number;
  /** The interest the other server announced (RS+ or LS+ not taken back). */
  readonly subscriptionCount: number;
  readonly subjects: string[];
}
