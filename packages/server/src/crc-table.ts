/**
 * The 256-entry lookup table of a reflected CRC-32 with the given polynomial, for inputs too
 * short to be worth a call into zlib, or with a polynomial zlib lacks.
 */
export function reflectedCrcTable(polynomial: number): Uint32Array {
  return Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ polynomial : c >>> 1;
    return c >>> 0;
  });
}
