/**
 * Small media files drawn and synthesised by code, with no input but numbers: a supersampled RGBA raster
 * and its PNG encoding, a mono 16-bit WAV, a one-triangle glTF binary (GLB) and a zip. Every function is
 * deterministic (same arguments, same bytes on one Node release), so the sample catalog's pictures
 * (`dev/sample-media.ts`) and the storage guide's files are made by us and can be made again.
 */
import { deflateSync } from 'node:zlib';
import yazl from 'yazl';

/** A colour: red, green, blue 0-255 and alpha 0-1. */
export type Rgba = readonly [r: number, g: number, b: number, a: number];

/** A colour from hue (degrees), saturation and lightness (0-1), and alpha (default 1). */
export function hsl(h: number, s: number, l: number, a = 1): Rgba {
  const k = (n: number): number => (n + h / 30) % 12;
  const c = s * Math.min(l, 1 - l);
  const f = (n: number): number => Math.round(255 * (l - c * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4), a];
}

/** Inclusive bounding box of a shape, in picture pixels. */
interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** A point of a polygon, in picture pixels. */
export type Point = readonly [x: number, y: number];

/**
 * A `w`×`h` picture drawn with anti-aliased shapes: each pixel is sampled `ss`×`ss` times (default 4) and
 * shapes are painted over what is there (straight alpha, source over). Coordinates are picture pixels
 * (fractions allowed; (0, 0) is the top-left corner of the top-left pixel).
 */
export class Raster {
  private readonly sw: number;
  private readonly sh: number;
  /** Premultiplied RGBA of every sample, 0-1. */
  private readonly px: Float32Array;

  constructor(
    readonly w: number,
    readonly h: number,
    private readonly ss = 4,
  ) {
    this.sw = w * ss;
    this.sh = h * ss;
    this.px = new Float32Array(this.sw * this.sh * 4);
  }

  /** Paint `color` over every sample whose centre `inside` accepts, within `box`. */
  private paint(box: Box, color: Rgba, inside: (x: number, y: number) => boolean): this {
    const s = this.ss;
    const a = color[3];
    const [r, g, b] = [(color[0] / 255) * a, (color[1] / 255) * a, (color[2] / 255) * a];
    const sx0 = Math.max(0, Math.floor(box.x0 * s));
    const sy0 = Math.max(0, Math.floor(box.y0 * s));
    const sx1 = Math.min(this.sw - 1, Math.ceil(box.x1 * s));
    const sy1 = Math.min(this.sh - 1, Math.ceil(box.y1 * s));
    for (let sy = sy0; sy <= sy1; sy++) {
      const y = (sy + 0.5) / s;
      for (let sx = sx0; sx <= sx1; sx++) {
        if (!inside((sx + 0.5) / s, y)) continue;
        const i = (sy * this.sw + sx) * 4;
        const keep = 1 - a;
        this.px[i] = r + this.px[i]! * keep;
        this.px[i + 1] = g + this.px[i + 1]! * keep;
        this.px[i + 2] = b + this.px[i + 2]! * keep;
        this.px[i + 3] = a + this.px[i + 3]! * keep;
      }
    }
    return this;
  }

  /** A rectangle with corner radius `r` (default 0). */
  rect(x: number, y: number, w: number, h: number, color: Rgba, r = 0): this {
    const rr = Math.min(r, w / 2, h / 2);
    return this.paint({ x0: x, y0: y, x1: x + w, y1: y + h }, color, (px, py) => {
      if (px < x || px > x + w || py < y || py > y + h) return false;
      const dx = Math.max(x + rr - px, 0, px - (x + w - rr));
      const dy = Math.max(y + rr - py, 0, py - (y + h - rr));
      return dx * dx + dy * dy <= rr * rr;
    });
  }

  /** An ellipse centred on (`cx`, `cy`) with radii `rx`, `ry` (a circle when `ry` is left out). */
  ellipse(cx: number, cy: number, rx: number, color: Rgba, ry = rx): this {
    return this.paint({ x0: cx - rx, y0: cy - ry, x1: cx + rx, y1: cy + ry }, color, (x, y) => {
      const dx = (x - cx) / rx;
      const dy = (y - cy) / ry;
      return dx * dx + dy * dy <= 1;
    });
  }

  /** A ring centred on (`cx`, `cy`) between radii `r0` and `r1`. */
  ring(cx: number, cy: number, r0: number, r1: number, color: Rgba): this {
    return this.paint({ x0: cx - r1, y0: cy - r1, x1: cx + r1, y1: cy + r1 }, color, (x, y) => {
      const d = (x - cx) ** 2 + (y - cy) ** 2;
      return d >= r0 * r0 && d <= r1 * r1;
    });
  }

  /** A polygon (even-odd rule). */
  poly(points: readonly Point[], color: Rgba): this {
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const box = { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
    return this.paint(box, color, (x, y) => {
      let inside = false;
      for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
        const [xi, yi] = points[i]!;
        const [xj, yj] = points[j]!;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
      return inside;
    });
  }

  /** A straight stroke of width `width` from (`x0`, `y0`) to (`x1`, `y1`) with square ends. */
  line(x0: number, y0: number, x1: number, y1: number, width: number, color: Rgba): this {
    const len = Math.hypot(x1 - x0, y1 - y0) || 1;
    const nx = ((y0 - y1) / len) * (width / 2);
    const ny = ((x1 - x0) / len) * (width / 2);
    return this.poly(
      [
        [x0 + nx, y0 + ny],
        [x1 + nx, y1 + ny],
        [x1 - nx, y1 - ny],
        [x0 - nx, y0 - ny],
      ],
      color,
    );
  }

  /** A star of `n` points centred on (`cx`, `cy`), outer radius `r1`, inner `r0`, turned by `turn` radians. */
  star(cx: number, cy: number, n: number, r0: number, r1: number, color: Rgba, turn = 0): this {
    const pts: Point[] = [];
    for (let i = 0; i < n * 2; i++) {
      const a = turn - Math.PI / 2 + (i * Math.PI) / n;
      const r = i % 2 === 0 ? r1 : r0;
      pts.push([cx + r * Math.cos(a), cy + r * Math.sin(a)]);
    }
    return this.poly(pts, color);
  }

  /** RGBA bytes (straight alpha), row by row: each pixel the mean of its samples. */
  pixels(): Uint8Array {
    const out = new Uint8Array(this.w * this.h * 4);
    const s = this.ss;
    const n = s * s;
    for (let y = 0; y < this.h; y++)
      for (let x = 0; x < this.w; x++) {
        let r = 0;
        let g = 0;
        let b = 0;
        let a = 0;
        for (let dy = 0; dy < s; dy++)
          for (let dx = 0; dx < s; dx++) {
            const i = ((y * s + dy) * this.sw + x * s + dx) * 4;
            r += this.px[i]!;
            g += this.px[i + 1]!;
            b += this.px[i + 2]!;
            a += this.px[i + 3]!;
          }
        const o = (y * this.w + x) * 4;
        out[o + 3] = Math.round((a / n) * 255);
        if (a > 0) {
          out[o] = Math.round((r / a) * 255);
          out[o + 1] = Math.round((g / a) * 255);
          out[o + 2] = Math.round((b / a) * 255);
        }
      }
    return out;
  }

  /** The picture as a PNG ({@link encodePng}). */
  png(): Buffer {
    return encodePng(this.w, this.h, this.pixels());
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (ISO 3309, as PNG and zip use it). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/**
 * A PNG (8-bit RGBA, colour type 6, no interlace, filter 0 on every row, deflate level 9, no time or text
 * chunk) of `w`×`h` pixels.
 * @param rgba straight-alpha bytes, `w * h * 4` of them, row by row.
 * @throws RangeError when `rgba` has another length.
 */
export function encodePng(w: number, h: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== w * h * 4) throw new RangeError(`a ${w}×${h} RGBA picture has ${w * h * 4} bytes, not ${rgba.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc((w * 4 + 1) * h);
  for (let y = 0; y < h; y++) raw.set(rgba.subarray(y * w * 4, (y + 1) * w * 4), y * (w * 4 + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A WAV file (RIFF, PCM, mono, 16-bit) of `samples` (each -1 to 1, clipped) at `rate` samples per second
 * (default 22,050).
 */
export function encodeWav(samples: readonly number[], rate = 22050): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2));
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVE', 8, 'latin1');
  head.write('fmt ', 12, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/**
 * A tone of `seconds` at `hz` whose pitch falls to `endHz` (default `hz`) and whose loudness decays
 * exponentially (`decay` per second, default 12), with a 5 ms attack; samples at `rate` (default 22,050).
 */
export function tone(seconds: number, hz: number, endHz = hz, decay = 12, rate = 22050): number[] {
  const n = Math.round(seconds * rate);
  const out: number[] = [];
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const f = hz + ((endHz - hz) * i) / n;
    phase += (2 * Math.PI * f) / rate;
    const attack = Math.min(1, t / 0.005);
    out.push(0.6 * attack * Math.exp(-decay * t) * (Math.sin(phase) + 0.3 * Math.sin(2 * phase)));
  }
  return out;
}

/**
 * A glTF 2.0 binary (GLB) holding one mesh of one triangle (three `VEC3` float positions in one buffer
 * view, with the accessor's `min` and `max` the format requires), named `name`, in one node of one scene.
 * Chunks are padded to 4 bytes (JSON with spaces, the binary with zeros), as the format says.
 */
export function encodeGlb(
  name: string,
  triangle: readonly [Point, Point, Point] = [
    [0, 0],
    [1, 0],
    [0, 1],
  ],
): Buffer {
  const bin = Buffer.alloc(36);
  triangle.forEach(([x, y], i) => {
    bin.writeFloatLE(x, i * 12);
    bin.writeFloatLE(y, i * 12 + 4);
    bin.writeFloatLE(0, i * 12 + 8);
  });
  const xs = triangle.map((p) => p[0]);
  const ys = triangle.map((p) => p[1]);
  const gltf = {
    asset: { version: '2.0', generator: 'dev/media.ts' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name }],
    meshes: [{ name, primitives: [{ attributes: { POSITION: 0 } }] }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: bin.length, target: 34962 }],
    accessors: [
      {
        bufferView: 0,
        componentType: 5126,
        count: 3,
        type: 'VEC3',
        min: [Math.min(...xs), Math.min(...ys), 0],
        max: [Math.max(...xs), Math.max(...ys), 0],
      },
    ],
  };
  let json = Buffer.from(JSON.stringify(gltf), 'utf8');
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const chunkHead = (length: number, type: string): Buffer => {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(length, 0);
    b.write(type, 4, 'latin1');
    return b;
  };
  const total = 12 + 8 + json.length + 8 + bin.length;
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  return Buffer.concat([header, chunkHead(json.length, 'JSON'), json, chunkHead(bin.length, 'BIN\0'), bin]);
}

/**
 * A zip of `entries` (name → bytes; a name ending in `/` is a directory), deflated, every entry dated
 * 2026-01-01 00:00 in the DOS fields alone (no Unix time field), so the bytes do not depend on the time zone.
 */
export async function encodeZip(entries: readonly (readonly [name: string, data: Buffer])[]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  const dated = { mtime: new Date(2026, 0, 1), forceDosTimestamp: true };
  for (const [name, data] of entries) {
    if (name.endsWith('/')) z.addEmptyDirectory(name, dated);
    else z.addBuffer(data, name, { ...dated, compress: true });
  }
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
