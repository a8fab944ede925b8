#!/usr/bin/env node
// Draws Switchboard's app and tray icons and writes them as PNG (and one ICO)
// into this folder. No dependencies beyond Node itself, no downloads; the
// output is byte-for-byte the same on every run, so the committed files can
// be checked by running this script and `git diff --exit-code icons/`.
//
//   node icons/generate.mjs
//
// The motif: three inputs on the left joined into one output on the right
// (many MCP servers behind one endpoint). Tray variants add a status badge:
// healthy (green), degraded (amber), down (red), all-disabled (grey, no badge).

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = dirname(fileURLToPath(import.meta.url));
const SAMPLES = 4; // supersampling per axis

// --- geometry in a 0..1 unit square -------------------------------------------------
const clamp = (x, a, b) => Math.min(b, Math.max(a, x));

function roundedRect(cx, cy, hw, hh, r) {
  return (x, y) => {
    const qx = Math.abs(x - cx) - hw + r;
    const qy = Math.abs(y - cy) - hh + r;
    const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0));
    return outside + Math.min(Math.max(qx, qy), 0) - r;
  };
}

const circle = (cx, cy, r) => (x, y) => Math.hypot(x - cx, y - cy) - r;

function segment(ax, ay, bx, by, r) {
  return (x, y) => {
    const px = x - ax;
    const py = y - ay;
    const dx = bx - ax;
    const dy = by - ay;
    const h = clamp((px * dx + py * dy) / (dx * dx + dy * dy), 0, 1);
    return Math.hypot(px - dx * h, py - dy * h) - r;
  };
}

const union = (...shapes) => (x, y) => Math.min(...shapes.map((s) => s(x, y)));

function hex(color, alpha = 1) {
  const n = Number.parseInt(color.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, alpha];
}

/** Renders layers ([shape, rgba]) painted in order over transparency. */
function render(size, layers) {
  const px = new Uint8Array(size * size * 4);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (const [shape, [cr, cg, cb, ca]] of layers) {
        let cover = 0;
        for (let sj = 0; sj < SAMPLES; sj++) {
          for (let si = 0; si < SAMPLES; si++) {
            const x = (i + (si + 0.5) / SAMPLES) / size;
            const y = (j + (sj + 0.5) / SAMPLES) / size;
            if (shape(x, y) <= 0) cover++;
          }
        }
        const sa = (cover / (SAMPLES * SAMPLES)) * ca;
        if (sa === 0) continue;
        // "over" compositing, premultiplied.
        r = cr * sa + r * (1 - sa);
        g = cg * sa + g * (1 - sa);
        b = cb * sa + b * (1 - sa);
        a = sa + a * (1 - sa);
      }
      const o = (j * size + i) * 4;
      px[o] = a > 0 ? Math.round(r / a) : 0;
      px[o + 1] = a > 0 ? Math.round(g / a) : 0;
      px[o + 2] = a > 0 ? Math.round(b / a) : 0;
      px[o + 3] = Math.round(a * 255);
    }
  }
  return px;
}

// --- PNG and ICO encoding -----------------------------------------------------------
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function png(size, px) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    Buffer.from(px.buffer, y * size * 4, size * 4).copy(raw, y * (size * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ICO holding PNG images (supported since Windows Vista). */
function ico(images) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, data }) => {
    const e = Buffer.alloc(16);
    e[0] = size >= 256 ? 0 : size;
    e[1] = size >= 256 ? 0 : size;
    e.writeUInt16LE(1, 4); // planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(data.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += data.length;
    return e;
  });
  return Buffer.concat([header, ...entries, ...images.map((i) => i.data)]);
}

// --- the drawings ---------------------------------------------------------------------
const BLUE = '#1f5fd6';
const WHITE = '#ffffff';
const STATUS = { healthy: '#1a9e45', degraded: '#e0a000', down: '#d93025' };

/** Three inputs joined into one output. */
function motif(stroke) {
  const inputs = [0.3, 0.5, 0.7].map((y) => [0.27, y]);
  const out = [0.73, 0.5];
  const w = 0.045 * stroke;
  return union(
    ...inputs.map(([x, y]) => circle(x, y, 0.075)),
    circle(out[0], out[1], 0.095),
    ...inputs.map(([x, y]) => segment(x, y, out[0], out[1], w)),
  );
}

function appIcon(size) {
  return render(size, [
    [roundedRect(0.5, 0.5, 0.46, 0.46, 0.2), hex(BLUE)],
    [motif(1), hex(WHITE)],
  ]);
}

/** Tray icons: the motif on a rounded tile, with a status badge bottom-right. */
function trayIcon(size, status) {
  const tile = status === 'disabled' ? '#8c959f' : BLUE;
  const layers = [
    [roundedRect(0.5, 0.5, 0.48, 0.48, 0.16), hex(tile)],
    [motif(1.3), hex(WHITE)],
  ];
  if (status !== 'disabled') {
    layers.push([circle(0.78, 0.78, 0.22), hex(WHITE)]);
    layers.push([circle(0.78, 0.78, 0.17), hex(STATUS[status])]);
  }
  return render(size, layers);
}

const written = [];
function write(name, data) {
  writeFileSync(join(OUT, name), data);
  written.push(`${name} (${data.length} bytes)`);
}

const app = Object.fromEntries([32, 64, 128, 256, 512].map((s) => [s, png(s, appIcon(s))]));
write('32x32.png', app[32]);
write('64x64.png', app[64]);
write('128x128.png', app[128]);
write('128x128@2x.png', app[256]);
write('icon.png', app[512]);
write('icon.ico', ico([32, 64, 256].map((s) => ({ size: s, data: app[s] }))));
for (const status of ['healthy', 'degraded', 'down', 'disabled']) {
  write(`tray-${status}.png`, png(64, trayIcon(64, status)));
}
process.stderr.write(`wrote ${written.length} files to ${OUT}:\n  ${written.join('\n  ')}\n`);
