/**
 * The sample binaries, drawn and synthesised here (`dev/media.ts`), never copied from anywhere:
 * `npm run samples` writes them, and `test/dev/sample-media.test.ts` fails when a committed file differs
 * from what this module makes (PNGs compared by their pixels, so another zlib's bytes still pass).
 *
 * - The sample catalog's pictures under `catalog-src/cdn/` (docs/architecture.md, "Sample binaries"):
 *   one icon (64×64) per key of `icon-sources.json` (spec §4.6) and one sprite per path of `sprites2d.json`
 *   (§2.3, §4.5: character animations as strips of four 32×32 frames, effects, scenery and orbs), each at
 *   its key below the folder, which mirrors `{cdn_url}`, and a preview per `previewUrl` of the asset manifest
 *   (`studiodot-assets.json`, §2.4: sprites, model shots, video posters). `npm start` places them in local storage.
 * - The storage guide's files under `docs/guides/samples/` (§4.7): a PNG, two WAV clips, a GLB of one
 *   triangle and a zip of pictures and a clip.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../api/_lib/config.js';
import { Raster, encodeGlb, encodeWav, encodeZip, hsl, tone, type Point, type Rgba } from './media.js';
import { wantsHelp } from './cli.js';

/** The sample catalog's folder of `{cdn_url}` files, relative to the project root. */
export const SAMPLE_CDN_DIR = 'catalog-src/cdn';
/** The storage guide's sample files, relative to the project root. */
export const GUIDE_SAMPLES_DIR = 'docs/guides/samples';

/** FNV-1a of `text`, 32 bits: the seed of a picture's colours. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Base hue of each icon category (spec §4.6). */
const CATEGORY_HUES: Readonly<Record<string, number>> = {
  misc: 40,
  race: 150,
  ability: 200,
  armor: 215,
  consumable: 350,
  faction: 0,
  item: 30,
  material: 280,
  entity: 100,
  class: 250,
  weapon: 20,
  profession: 60,
  sigil: 300,
  skill: 190,
  spell: 265,
  ui: 45,
};

type Glyph = (r: Raster, ink: Rgba) => void;

const sword: Glyph = (r, ink) => {
  r.poly(
    [
      [29, 8],
      [35, 8],
      [35, 38],
      [32, 43],
      [29, 38],
    ],
    ink,
  );
  r.rect(22, 39, 20, 4, ink, 2).rect(30, 43, 4, 9, ink).ellipse(32, 54, 3.5, ink);
};
const axe: Glyph = (r, ink) => {
  r.line(22, 54, 40, 12, 4, ink);
  r.poly(
    [
      [34, 10],
      [50, 14],
      [52, 28],
      [40, 26],
    ],
    ink,
  );
};
const bow: Glyph = (r, ink) => {
  // the limbs: the right half of a ring, as one polygon
  const arc = (radius: number): Point[] =>
    Array.from({ length: 17 }, (_, i) => {
      const a = ((i - 8) / 8) * (Math.PI / 2.1);
      return [24 + radius * Math.cos(a), 32 + radius * Math.sin(a)] as const;
    });
  r.poly([...arc(23), ...arc(19).reverse()], ink);
  r.line(24, 10, 24, 54, 1.5, ink).line(16, 32, 50, 32, 2, ink);
  r.poly(
    [
      [50, 27],
      [56, 32],
      [50, 37],
    ],
    ink,
  );
};
const staff: Glyph = (r, ink) => {
  r.line(20, 56, 42, 16, 4, ink);
  r.ellipse(44, 14, 6, ink);
};
const shield: Glyph = (r, ink) => {
  r.poly(
    [
      [16, 12],
      [48, 12],
      [48, 32],
      [32, 54],
      [16, 32],
    ],
    ink,
  );
};
const crest: Glyph = (r, ink) => {
  r.ring(32, 32, 15, 19, ink).ellipse(32, 32, 9, ink);
};
const banner: Glyph = (r, ink) => {
  r.rect(16, 8, 4, 48, ink);
  r.poly(
    [
      [20, 10],
      [48, 10],
      [48, 40],
      [34, 32],
      [20, 40],
    ],
    ink,
  );
};
const burst: Glyph = (r, ink) => {
  r.star(32, 32, 8, 8, 22, ink);
};
const flask: Glyph = (r, ink) => {
  r.ellipse(32, 40, 14, ink).rect(28, 12, 8, 16, ink).rect(25, 10, 14, 4, ink, 2);
};
const gem: Glyph = (r, ink) => {
  r.poly(
    [
      [20, 24],
      [26, 14],
      [38, 14],
      [44, 24],
      [32, 52],
    ],
    ink,
  );
};
const trinket: Glyph = (r, ink) => {
  r.ring(24, 24, 7, 11, ink).line(31, 31, 50, 50, 5, ink).rect(40, 46, 6, 8, ink);
};
const beast: Glyph = (r, ink) => {
  r.ellipse(32, 30, 17, ink, 15).rect(24, 40, 16, 10, ink, 3);
  r.ellipse(25, 28, 4, [0, 0, 0, 0.7]).ellipse(39, 28, 4, [0, 0, 0, 0.7]);
};
const emblem: Glyph = (r, ink) => {
  r.poly(
    [
      [14, 20],
      [32, 10],
      [50, 20],
      [50, 26],
      [32, 16],
      [14, 26],
    ],
    ink,
  );
  r.poly(
    [
      [14, 36],
      [32, 26],
      [50, 36],
      [50, 42],
      [32, 32],
      [14, 42],
    ],
    ink,
  );
  r.ellipse(32, 50, 4, ink);
};
const hammer: Glyph = (r, ink) => {
  r.line(22, 54, 38, 22, 4, ink);
  r.poly(
    [
      [26, 14],
      [46, 24],
      [42, 32],
      [22, 22],
    ],
    ink,
  );
};
const sigil: Glyph = (r, ink) => {
  r.ring(32, 32, 17, 20, ink);
  r.poly(
    [
      [32, 16],
      [46, 40],
      [18, 40],
    ],
    ink,
  );
};
const button: Glyph = (r, ink) => {
  r.ellipse(32, 32, 16, ink).ellipse(28, 27, 5, [255, 255, 255, 0.45]);
};

/** The glyph of an icon: by a word of its key where one fits, else by its category. */
function glyphOf(key: string, category: string): Glyph {
  if (/bow|arbalest|piercing_shot|volley/.test(key)) return bow;
  if (/staff|pike|wand/.test(key)) return staff;
  if (/hatchet|maul|axe/.test(key)) return axe;
  const byCategory: Record<string, Glyph> = {
    weapon: sword,
    armor: shield,
    race: crest,
    faction: banner,
    ability: burst,
    skill: burst,
    spell: burst,
    consumable: flask,
    material: gem,
    misc: trinket,
    item: trinket,
    entity: beast,
    class: emblem,
    profession: hammer,
    sigil,
    ui: button,
  };
  return byCategory[category] ?? gem;
}

/**
 * A 64×64 icon for `key` of `category` (spec §4.6): a rounded tile in the category's hue (turned a little by
 * the key, so no two icons share a colour), and a light glyph with a soft shadow.
 */
export function iconPng(key: string, category: string): Buffer {
  const h = (CATEGORY_HUES[category] ?? 0) + ((hash(key) % 41) - 20);
  const r = new Raster(64, 64);
  r.rect(2, 2, 60, 60, hsl(h, 0.45, 0.22), 12).rect(5, 5, 54, 54, hsl(h, 0.5, 0.36), 10);
  r.ellipse(32, 22, 26, hsl(h, 0.55, 0.46, 0.35), 16);
  const glyph = glyphOf(key, category);
  const shadow = new Raster(64, 64);
  glyph(shadow, [0, 0, 0, 1]);
  // the glyph's shadow: the same shape, one pixel down and right, drawn first
  const base = new Raster(64, 64);
  glyph(base, hsl(h, 0.35, 0.9));
  return composite(r, [
    [shadow, 1.5, 1.5, 0.45],
    [base, 0, 0, 1],
  ]).png();
}

/** `under` with each layer painted over it at an offset and opacity (layers are drawn at the same size). */
function composite(under: Raster, layers: readonly (readonly [Raster, number, number, number])[]): Raster {
  const w = under.w;
  const hgt = under.h;
  const out = new Raster(w, hgt, 1);
  const paintPixels = (px: Uint8Array, dx: number, dy: number, opacity: number): void => {
    for (let y = 0; y < hgt; y++)
      for (let x = 0; x < w; x++) {
        const sx = Math.round(x - dx);
        const sy = Math.round(y - dy);
        if (sx < 0 || sy < 0 || sx >= w || sy >= hgt) continue;
        const i = (sy * w + sx) * 4;
        const a = (px[i + 3]! / 255) * opacity;
        if (a > 0) out.rect(x, y, 1, 1, [px[i]!, px[i + 1]!, px[i + 2]!, a]);
      }
  };
  paintPixels(under.pixels(), 0, 0, 1);
  for (const [layer, dx, dy, opacity] of layers) paintPixels(layer.pixels(), dx, dy, opacity);
  return out;
}

/** A footman in frame `f` (0-3) of `animation`, on a 32×32 cell at `ox`. */
function footman(r: Raster, ox: number, f: number, animation: string): void {
  const bob = animation === 'idle' ? [0, 1, 0, -1][f]! : 0;
  const step = animation === 'walk' ? [-3, 0, 3, 0][f]! : 0;
  const skin = hsl(30, 0.5, 0.7);
  const tunic = hsl(215, 0.45, 0.45);
  const steel = hsl(210, 0.1, 0.75);
  r.line(ox + 14, 22, ox + 13 + step, 30, 3, hsl(25, 0.3, 0.3)).line(ox + 18, 22, ox + 19 - step, 30, 3, hsl(25, 0.3, 0.3));
  r.rect(ox + 11, 12 + bob, 10, 11, tunic, 2);
  r.ellipse(ox + 16, 8 + bob, 4, skin).rect(ox + 11.5, 3 + bob, 9, 3, steel, 1.5);
  const reach = animation === 'attack' ? [0, 4, 9, 4][f]! : 0;
  r.line(ox + 20, 15 + bob, ox + 23 + reach, 17 + bob, 2.5, skin);
  r.line(ox + 23 + reach, 17 + bob, ox + 26 + reach, 4 + bob + reach / 2, 2, steel);
  r.ellipse(ox + 10, 17 + bob, 4, hsl(0, 0.45, 0.4), 6);
}

/** A cinder hound in frame `f` (0-3) of `animation`, on a 32×32 cell at `ox`. */
function hound(r: Raster, ox: number, f: number, animation: string): void {
  const fur = hsl(15, 0.55, 0.35);
  const ember = hsl(30, 0.95, 0.55);
  const fall = animation === 'death' ? f : 0;
  const gait = animation === 'run' ? [-3, 2, 3, -2][f]! : 0;
  const y = 18 + fall * 2.5;
  r.line(ox + 10, y + 2, ox + 9 + gait, 29, 2.5, fur).line(ox + 22, y + 2, ox + 23 - gait, 29, 2.5, fur);
  r.ellipse(ox + 16, y, 9, fur, 5 - fall * 0.6);
  r.ellipse(ox + 25, y - 4 + fall * 1.5, 4.5, fur).ellipse(ox + 27, y - 5 + fall * 1.5, 1.2, ember);
  r.line(ox + 7, y - 1, ox + 3, y - 5 + fall * 2, 2, ember);
}

/** A sprite for `path` (spec §2.3): character strips (4 frames of 32×32), 64×64 effects and scenery, 32×32 orbs. */
export function spritePng(path: string): Buffer {
  const name = path
    .split('/')
    .pop()!
    .replace(/\.png$/, '');
  if (path.includes('/characters/')) {
    const r = new Raster(128, 32);
    for (let f = 0; f < 4; f++) {
      if (path.includes('/footman/')) footman(r, f * 32, f, name);
      else hound(r, f * 32, f, name);
    }
    return r.png();
  }
  if (path.includes('/ui/')) {
    const h = name.startsWith('health') ? 355 : 220;
    return new Raster(32, 32)
      .ellipse(16, 16, 14, hsl(h, 0.4, 0.2))
      .ellipse(16, 16, 12, hsl(h, 0.75, 0.45))
      .ellipse(12, 11, 4, [255, 255, 255, 0.5])
      .png();
  }
  const r = new Raster(64, 64);
  switch (name) {
    case 'ember_burst':
      r.star(32, 32, 9, 10, 28, hsl(25, 0.95, 0.55, 0.9))
        .star(32, 32, 7, 6, 16, hsl(45, 1, 0.65))
        .ellipse(32, 32, 5, [255, 250, 220, 1]);
      break;
    case 'frost_ring':
      r.ring(32, 32, 18, 26, hsl(195, 0.8, 0.7, 0.85)).ring(32, 32, 12, 15, hsl(190, 0.9, 0.85, 0.7));
      for (let i = 0; i < 6; i++) r.star(32 + 22 * Math.cos(i), 32 + 22 * Math.sin(i), 4, 1, 4, [255, 255, 255, 0.9]);
      break;
    case 'spark_chain':
      r.poly(
        [
          [8, 12],
          [30, 26],
          [22, 32],
          [56, 52],
          [34, 36],
          [42, 30],
        ],
        hsl(55, 1, 0.6),
      );
      r.ellipse(8, 12, 4, [255, 255, 255, 0.9]).ellipse(56, 52, 4, [255, 255, 255, 0.9]);
      break;
    case 'ashwood_tree':
      r.rect(28, 36, 8, 24, hsl(25, 0.35, 0.28), 2);
      r.ellipse(32, 24, 20, hsl(95, 0.3, 0.32), 16)
        .ellipse(24, 30, 10, hsl(95, 0.3, 0.38))
        .ellipse(40, 28, 11, hsl(90, 0.28, 0.36));
      break;
    case 'mire_reeds':
      for (let i = 0; i < 7; i++) r.line(12 + i * 7, 60, 14 + i * 7 + (i % 3) - 1, 18 + (i % 4) * 6, 2, hsl(80 + i * 4, 0.4, 0.35));
      r.rect(4, 56, 56, 6, hsl(180, 0.3, 0.3, 0.8), 3);
      break;
    case 'quarry_rock':
      r.poly(
        [
          [8, 54],
          [14, 30],
          [30, 16],
          [48, 22],
          [58, 48],
          [50, 56],
        ],
        hsl(30, 0.08, 0.45),
      );
      r.poly(
        [
          [30, 16],
          [48, 22],
          [40, 34],
        ],
        hsl(30, 0.08, 0.6),
      );
      break;
    default: {
      // heal motes, and any other effect: rising motes
      const hue = name.startsWith('heal') ? 120 : hash(name) % 360;
      for (let i = 0; i < 9; i++) {
        const k = hash(`${name}:${i}`);
        r.ellipse(10 + (k % 44), 10 + ((k >>> 8) % 44), 3 + ((k >>> 16) % 4), hsl(hue, 0.8, 0.65, 0.85));
      }
    }
  }
  return r.png();
}

/**
 * A preview picture of an asset of the asset manifest (spec §2.4 `previewUrl`): a sprite's own picture; a
 * model's 64×64 studio shot (its silhouette by a word of its key, as icons choose glyphs, on a backdrop with a
 * floor shadow); a video's 128×72 poster (bands of dusk and a play mark).
 * @param type the asset's `type`; @param url the asset's `url` (its words pick the picture).
 */
export function previewPng(type: string, url: string): Buffer {
  if (type === 'sprite') return spritePng(url);
  const name = (url.split('/').pop() ?? '').replace(/\.[a-z0-9]+$/i, '');
  if (type === 'video') {
    const h = hash(name) % 360;
    const r = new Raster(128, 72);
    for (let i = 0; i < 6; i++) r.rect(0, i * 12, 128, 12, hsl(h + i * 8, 0.45, 0.16 + i * 0.07));
    r.ellipse(64, 36, 18, [0, 0, 0, 0.45]).poly(
      [
        [58, 26],
        [74, 36],
        [58, 46],
      ],
      [255, 255, 255, 0.9],
    );
    return r.png();
  }
  if (name === 'ashwood_tree') return spritePng(`/${name}.png`);
  const r = new Raster(64, 64);
  r.rect(0, 0, 64, 64, hsl(220, 0.12, 0.18)).ellipse(32, 24, 30, hsl(220, 0.15, 0.26), 20);
  r.ellipse(32, 56, 20, [0, 0, 0, 0.35], 4);
  const glyph = url.includes('/enemies/') ? beast : glyphOf(name, 'weapon');
  glyph(r, hsl(hash(name) % 360, 0.15, 0.72));
  return r.png();
}

/** One sample file: its path relative to the project root and its bytes. */
export interface SampleFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/**
 * The sample catalog's pictures: an icon per key of `<src>/icon-sources.json`, a sprite per path of
 * `<src>/sprites2d.json`, each at `<cdnDir>/<key>` (a sprite path's leading `/` dropped, as `{cdn_url}/{key}`
 * joins it, spec §4.9), and a preview ({@link previewPng}) per `previewUrl` of `<src>/studiodot-assets.json`
 * on the config's `cdn_url`, at its path below it.
 * @param src the sample catalog folder, relative to the project root (default `catalog-src`).
 */
export function catalogPictures(src = 'catalog-src', cdnDir = SAMPLE_CDN_DIR): SampleFile[] {
  const read = (file: string): unknown => JSON.parse(readFileSync(join(PROJECT_ROOT, src, file), 'utf8'));
  const icons = (read('icon-sources.json') as { icons: { key: string; category: string }[] }).icons;
  const sprites = read('sprites2d.json') as { categories: Record<string, { items: { path: string }[] }> };
  const out: SampleFile[] = icons.map((i) => ({ path: `${cdnDir}/${i.key}`, bytes: iconPng(i.key, i.category) }));
  for (const c of Object.values(sprites.categories))
    for (const s of c.items) out.push({ path: `${cdnDir}/${s.path.replace(/^\/+/, '')}`, bytes: spritePng(s.path) });
  const cdn = `${(read('catalog.config.json') as { cdn_url: string }).cdn_url.replace(/\/+$/, '')}/`;
  const assets = (read('studiodot-assets.json') as { assets: { type: string; url: string; previewUrl: string | null }[] }).assets;
  for (const a of assets)
    if (a.previewUrl?.startsWith(cdn)) out.push({ path: `${cdnDir}/${a.previewUrl.slice(cdn.length)}`, bytes: previewPng(a.type, a.url) });
  return out;
}

/**
 * The storage guide's files (docs/guides/storage.md): `anvil.png` (64×64), `hit.wav` and `swing.wav`
 * (short synthesised clips), `anvil.glb` (one triangle) and `pack.zip` (two pictures and a clip in
 * folders, a directory entry and a dot-file, which the archive route skips).
 */
export async function guideSamples(dir = GUIDE_SAMPLES_DIR): Promise<SampleFile[]> {
  const anvil = new Raster(64, 64)
    .rect(2, 2, 60, 60, hsl(20, 0.4, 0.22), 12)
    .poly(
      [
        [10, 20],
        [54, 20],
        [54, 28],
        [44, 32],
        [40, 42],
        [24, 42],
        [20, 32],
        [10, 28],
      ],
      hsl(210, 0.08, 0.7),
    )
    .rect(18, 42, 28, 8, hsl(210, 0.08, 0.55), 2)
    .png();
  const hit = encodeWav(tone(0.18, 440, 220, 25));
  const swing = encodeWav(tone(0.25, 180, 900, 10));
  const pack = await encodeZip([
    ['icons/', Buffer.alloc(0)],
    ['icons/tongs.png', iconPng('pack/icons/tongs.png', 'profession')],
    ['icons/ingot.png', iconPng('pack/icons/ingot.png', 'material')],
    ['sfx/quench.wav', encodeWav(tone(0.12, 1200, 300, 30))],
    ['.DS_Store', Buffer.from('not a picture\n')],
  ]);
  return [
    { path: `${dir}/anvil.png`, bytes: anvil },
    { path: `${dir}/hit.wav`, bytes: hit },
    { path: `${dir}/swing.wav`, bytes: swing },
    { path: `${dir}/anvil.glb`, bytes: encodeGlb('anvil') },
    { path: `${dir}/pack.zip`, bytes: pack },
  ];
}

const USAGE = `Usage: npm run samples

Draws and synthesises the sample binaries again and writes them: the sample catalog's pictures under
catalog-src/cdn/ (npm start places them in local storage) and the storage guide's files under
docs/guides/samples/. Takes no options; the files are the same on every run.

Options:
  -h, --help   print this help

Example:
  npm run samples && git status --short catalog-src/cdn docs/guides/samples
`;

/**
 * Write every sample file (`npm run samples`); prints what it wrote. `--help` prints the usage and writes
 * nothing.
 * @returns the exit code: 0, or 2 for an argument it does not take (nothing written).
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`npm run samples takes no arguments (got ${JSON.stringify(argv[0]).slice(0, 80)}).\n${USAGE}`);
    return 2;
  }
  const files = [...catalogPictures(), ...(await guideSamples())];
  let bytes = 0;
  for (const f of files) {
    const abs = join(PROJECT_ROOT, f.path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, f.bytes);
    bytes += f.bytes.length;
  }
  process.stdout.write(
    `Wrote ${files.length} sample files (${(bytes / 1024).toFixed(1)} KiB) under ${SAMPLE_CDN_DIR}/ and ${GUIDE_SAMPLES_DIR}/.\n`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(2);
    },
  );
}
