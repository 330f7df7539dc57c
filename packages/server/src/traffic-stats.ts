/** Counters shared by every connection, reported in /varz. */
export interface TrafficStats {
  inMsgs: number;
  inBytes: number;
  outMsgs: number;
  outBytes: number;
  slowConsumers: number;
}
