/** PEM contents in the form node:tls takes: text as is, bytes as a Buffer. */
export function pem(value: string | Uint8Array): string | Buffer {
  return typeof value === 'string' ? value : Buffer.from(value);
}
