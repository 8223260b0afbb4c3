// Writes the app icons, all the same four-tile mark as public/favicon.svg: public/favicon.ico (a
// 32×32 PNG inside an ICO container: browsers and crawlers still ask for /favicon.ico whatever the
// page links), apple-touch-icon.png (180, square and opaque: iOS rounds the corners itself) and the
// web manifest's icon-192.png and icon-512.png.
// Run with `npx tsx scripts/favicon.ts` after changing the mark; the output is committed.
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

type Rgba = [number, number, number, number];
const INDIGO: Rgba = [0x4f, 0x46, 0xe5, 255];
const WHITE: Rgba = [255, 255, 255, 255];
const PALE: Rgba = [0xc7, 0xd2, 0xfe, 255];
const CLEAR: Rgba = [0, 0, 0, 0];

function inRounded(x: number, y: number, x0: number, y0: number, size: number, r: number) {
  if (x < x0 || y < y0 || x >= x0 + size || y >= y0 + size) return false;
  const cx = Math.min(Math.max(x, x0 + r), x0 + size - r);
  const cy = Math.min(Math.max(y, y0 + r), y0 + size - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

// (x, y) in the 32-unit space of the SVG, at sub-pixel precision.
function sample(x: number, y: number, rounded: boolean): Rgba {
  if (rounded && !inRounded(x, y, 0, 0, 32, 7)) return CLEAR;
  const tiles: [number, number, Rgba][] = [
    [7, 7, WHITE],
    [17, 7, PALE],
    [7, 17, PALE],
    [17, 17, WHITE],
  ];
  for (const [tx, ty, color] of tiles) if (inRounded(x, y, tx, ty, 8, 1.5)) return color;
  return INDIGO;
}

// Four by four samples a pixel, averaged, so edges stay smooth at every size.
function pixel(x: number, y: number, size: number, rounded: boolean): Rgba {
  const sum = [0, 0, 0, 0];
  const n = 4;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const c = sample(((x + (i + 0.5) / n) * 32) / size, ((y + (j + 0.5) / n) * 32) / size, rounded);
      for (let k = 0; k < 4; k++) sum[k]! += k < 3 ? c[k]! * c[3]! : c[3]!;
    }
  const alpha = sum[3]!;
  if (alpha === 0) return CLEAR;
  return [
    Math.round(sum[0]! / alpha),
    Math.round(sum[1]! / alpha),
    Math.round(sum[2]! / alpha),
    Math.round(alpha / (n * n)),
  ];
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer) {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(size: number, rounded = true): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows: number[] = [];
  for (let y = 0; y < size; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < size; x++) rows.push(...pixel(x, y, size, rounded));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows), { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const image = png(32);
const ico = Buffer.alloc(6 + 16);
ico.writeUInt16LE(0, 0); // reserved
ico.writeUInt16LE(1, 2); // type: icon
ico.writeUInt16LE(1, 4); // one image
ico.set([32, 32, 0, 0], 6); // width, height, palette, reserved
ico.writeUInt16LE(1, 10); // colour planes
ico.writeUInt16LE(32, 12); // bits per pixel
ico.writeUInt32LE(image.length, 14);
ico.writeUInt32LE(ico.length, 18); // the PNG follows the directory
const out = (name: string) => new URL(`../public/${name}`, import.meta.url);
writeFileSync(out("favicon.ico"), Buffer.concat([ico, image]));
writeFileSync(out("apple-touch-icon.png"), png(180, false));
writeFileSync(out("icon-192.png"), png(192));
writeFileSync(out("icon-512.png"), png(512));
