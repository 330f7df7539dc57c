/** Sent in CONNECT as the client version. */
export const VERSION = '0.0.0';
export const LANG = 'javascript';
