import { inflateSync } from 'node:zlib';

/**
 * A WOFF 1.0 font as the TrueType/OpenType file it wraps (W3C WOFF File Format 1.0, section 4–5):
 * each table inflated where compressed, laid out 4-byte aligned behind a rebuilt offset table. resvg
 * reads only sfnt files, and Fontsource ships Noto Sans SC as WOFF. Throws on anything malformed.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.length < 44 || woff.readUInt32BE(0) !== 0x774f4646) throw new Error('not a WOFF file');
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  if (44 + numTables * 20 > woff.length) throw new Error('WOFF table directory out of bounds');
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + i * 20;
    const [tag, offset, compLength, origLength, checksum] = [0, 4, 8, 12, 16].map((o) => woff.readUInt32BE(at + o));
    if (offset + compLength > woff.length || compLength > origLength) throw new Error('WOFF table out of bounds');
    const stored = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(stored) : stored;
    if (data.length !== origLength) throw new Error('WOFF table of the wrong length');
    return { tag, checksum, data };
  });
  const power = 2 ** Math.floor(Math.log2(Math.max(1, numTables)));
  const header = Buffer.alloc(12 + numTables * 16);
  header.writeUInt32BE(flavor, 0);
  header.writeUInt16BE(numTables, 4);
  header.writeUInt16BE(power * 16, 6);
  header.writeUInt16BE(Math.log2(power), 8);
  header.writeUInt16BE(numTables * 16 - power * 16, 10);
  const parts: Buffer[] = [header];
  let offset = header.length;
  tables.forEach(({ tag, checksum, data }, i) => {
    header.writeUInt32BE(tag, 12 + i * 16);
    header.writeUInt32BE(checksum, 16 + i * 16);
    header.writeUInt32BE(offset, 20 + i * 16);
    header.writeUInt32BE(data.length, 24 + i * 16);
    const padded = (data.length + 3) & ~3;
    parts.push(data, Buffer.alloc(padded - data.length));
    offset += padded;
  });
  return Buffer.concat(parts);
}
