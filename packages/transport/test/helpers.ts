import type { TransportConnection } from '../src/index.js';

/** Collects what a connection receives until `text` shows up (bounded by the test timeout). */
export function readUntil(conn: TransportConnection, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const decoder = new TextDecoder();
    conn.listen({
      data: (chunk) => {
        seen += decoder.decode(chunk);
        if (seen.includes(text)) resolve(seen);
      },
      closed: (error) => reject(error ?? new Error(`closed before ${text}; got ${seen}`)),
    });
  });
}

export const bytes = (s: string) => new TextEncoder().encode(s);
