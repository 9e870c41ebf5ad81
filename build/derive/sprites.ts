/**
 * Sprite and character registry derivation (spec 2.3, 2.6 SPRT family, 4.5).
 *
 * Sources (each optional; without them the outputs are emitted empty):
 * - `sprites2d.json` (spec 2.3) `{ totalSprites, generatedAt, categories: { <name>: { count, items: [{ name, path, category, subcategory, source }] } } }`
 * - `sprite-ids.json` `{ version, ids: { "<sprite path>": "SPRT-XXXXXXXX-XXXXXX" } }`: existing path → id pairs, kept
 * - `sprite-characters.json` `{ version, characters: [{ name, category, basePath, animations: { <anim>: "<sprite path>" } }] }`
 *
 * Ids: every well-formed, unshared id of `sprite-ids.json` stays with its path (even when the path is
 * gone, so that a re-added path gets its old id back and no new path takes it). A sprite path or
 * character base path without one gets `deriveSpriteId(namespaces.sprite, path)`, the same in every build;
 * in the (practically impossible) case that this id is taken, `path#1`, `path#2`, … are tried in turn.
 * A character's uuid is the id of its `basePath`; each animation resolves to the id of its sprite path,
 * or null when no sprite has that path (a null reference is skipped by clients, spec 2.7).
 *
 * The category a sprite is listed under is the `categories` key it sits in.
 */
import { isRecord, jsonPointer as pointer } from '../../api/_lib/util/json.js';
import { byCodeUnits } from '../../api/_lib/util/sorted.js';
import { deriveSpriteId, SPRITE_ID_RE } from '../pipeline/ids.js';
import type { DeriveContext, Deriver, Emitted, RuleDef } from '../pipeline/types.js';
import {
  CHARACTER_REGISTRY_FILE,
  SPRITE_REGISTRY_FILE,
  SPRITE_SEARCH_INDEX_FILE,
  SPRITE_STATS_FILE,
  type CategoryCount,
  type CharacterAnimation,
  type CharacterRecord,
  type CharacterRegistryFile,
  type SpriteRecord,
  type SpriteRegistryFile,
  type SpriteStatsFile,
  cdnFileUrl,
} from '../../api/_lib/formats/registries.js';
import { buildTermIndex } from '../../api/_lib/formats/term-index.js';

/** Sprite source file (spec 2.3). */
export const SPRITES_SOURCE_FILE = 'sprites2d.json';
/** Existing sprite path → SPRT id pairs. */
export const SPRITE_IDS_FILE = 'sprite-ids.json';
/** Sprite characters source file. */
export const SPRITE_CHARACTERS_FILE = 'sprite-characters.json';
/** Sprite registry version when the catalog config has no `versions.spriteRegistry`. */
const DEFAULT_SPRITE_REGISTRY_VERSION = '1.0.0';

/** Rules checked by {@link deriveSprites}. */
export const SPRITE_RULES: readonly RuleDef[] = [
  {
    name: 'sprites/source-shape',
    severity: 'error',
    description:
      'sprites2d.json, sprite-ids.json and sprite-characters.json have the shapes of spec 2.3 and of the registry sources (string fields, integer counts).',
  },
  {
    name: 'sprites/id-format',
    severity: 'error',
    description: 'Every id of sprite-ids.json has the form SPRT-{8 upper-case hex}-{6 upper-case hex} (spec 2.6).',
  },
  { name: 'sprites/duplicate-id', severity: 'error', description: 'No SPRT id names two paths (spec 2.6).' },
  { name: 'sprites/duplicate-path', severity: 'error', description: 'No sprite path is listed twice in sprites2d.json (one id per path).' },
  {
    name: 'sprites/stale-id',
    severity: 'warn',
    description: 'Every path of sprite-ids.json is a sprite or a character base path that still exists.',
  },
  {
    name: 'sprites/count-mismatch',
    severity: 'error',
    description: '`totalSprites` equals the number of items and every category `count` equals its number of items (spec 2.3).',
  },
  {
    name: 'sprites/category-mismatch',
    severity: 'warn',
    description: "A sprite item's `category` equals the name of the category it is listed under (spec 2.3).",
  },
  {
    name: 'sprites/duplicate-character',
    severity: 'error',
    description: "No two characters share a base path (a character's uuid is the id of its base path).",
  },
  { name: 'sprites/character-base-path', severity: 'warn', description: 'A character base path has the form /sprites/characters/<name>/.' },
  {
    name: 'sprites/unknown-animation',
    severity: 'warn',
    description: 'Every character animation names the path of a sprite of sprites2d.json.',
  },
];

function countsOf(values: readonly string[]): CategoryCount[] {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.keys()].sort().map((category) => ({ category, count: m.get(category) as number }));
}

type Report = (rule: string, file: string, ptr: string, message: string) => void;

interface SpriteSource {
  readonly name: string;
  readonly path: string;
  readonly category: string;
  readonly subcategory: string;
  readonly source: string;
}

/** Read sprites2d.json: valid, unique items, with every shape/count problem reported. */
function readSprites(data: unknown, report: Report): { sprites: SpriteSource[]; generatedAt: string | null } {
  const f = SPRITES_SOURCE_FILE;
  const sprites: SpriteSource[] = [];
  if (data === undefined) return { sprites, generatedAt: null };
  if (!isRecord(data) || !isRecord(data.categories)) {
    report(
      'sprites/source-shape',
      f,
      isRecord(data) ? '/categories' : '',
      `${f} must be { totalSprites, generatedAt, categories: { <name>: { count, items } } }; no sprite is registered.`,
    );
    return { sprites, generatedAt: null };
  }
  let generatedAt: string | null = null;
  if (typeof data.generatedAt === 'string') generatedAt = data.generatedAt;
  else if (data.generatedAt !== undefined) report('sprites/source-shape', f, '/generatedAt', 'generatedAt must be a date-time string.');

  const seen = new Map<string, string>();
  let itemTotal = 0;
  for (const [cat, block] of Object.entries(data.categories)) {
    if (!isRecord(block) || !Array.isArray(block.items)) {
      report(
        'sprites/source-shape',
        f,
        pointer('categories', cat),
        `category "${cat}" must be { count, items: [...] }; its sprites are not registered.`,
      );
      continue;
    }
    const items: unknown[] = block.items;
    itemTotal += items.length;
    if (!Number.isInteger(block.count))
      report(
        'sprites/source-shape',
        f,
        pointer('categories', cat, 'count'),
        `count of category "${cat}" must be an integer (it has ${items.length} items).`,
      );
    else if (block.count !== items.length) {
      report(
        'sprites/count-mismatch',
        f,
        pointer('categories', cat, 'count'),
        `category "${cat}" says count ${String(block.count)} but lists ${items.length} items; set count to ${items.length}.`,
      );
    }
    items.forEach((item, i) => {
      const at = (...rest: (string | number)[]): string => pointer('categories', cat, 'items', i, ...rest);
      if (!isRecord(item)) {
        report(
          'sprites/source-shape',
          f,
          at(),
          `item ${i} of "${cat}" must be { name, path, category, subcategory, source }; it is not registered.`,
        );
        return;
      }
      let bad = false;
      for (const field of ['name', 'path'] as const) {
        const v = item[field];
        if (typeof v !== 'string' || v.trim() === '') {
          report('sprites/source-shape', f, at(field), `item ${i} of "${cat}" needs a non-blank string "${field}"; it is not registered.`);
          bad = true;
        }
      }
      const text: Record<'category' | 'subcategory' | 'source', string> = { category: cat, subcategory: '', source: '' };
      for (const field of ['category', 'subcategory', 'source'] as const) {
        const v = item[field];
        if (typeof v === 'string') text[field] = v;
        else
          report(
            'sprites/source-shape',
            f,
            at(field),
            `"${field}" of item ${i} of "${cat}" must be a string${field === 'category' ? '' : '; "" is used'}.`,
          );
      }
      if (bad) return;
      const path = item.path as string;
      const first = seen.get(path);
      if (first !== undefined) {
        report(
          'sprites/duplicate-path',
          f,
          at('path'),
          `path "${path}" is already listed at ${first}; remove one. This entry is not registered.`,
        );
        return;
      }
      seen.set(path, at());
      if (typeof item.category === 'string' && item.category !== cat) {
        report(
          'sprites/category-mismatch',
          f,
          at('category'),
          `item says category "${item.category}" but is listed under "${cat}"; it is registered under "${cat}".`,
        );
      }
      sprites.push({ name: item.name as string, path, category: cat, subcategory: text.subcategory, source: text.source });
    });
  }
  if (!Number.isInteger(data.totalSprites)) {
    report(
      'sprites/source-shape',
      f,
      data.totalSprites === undefined ? '' : '/totalSprites',
      `totalSprites must be an integer (the file lists ${itemTotal} items).`,
    );
  } else if (data.totalSprites !== itemTotal) {
    report(
      'sprites/count-mismatch',
      f,
      '/totalSprites',
      `totalSprites is ${String(data.totalSprites)} but the categories list ${itemTotal} items; set it to ${itemTotal}.`,
    );
  }
  return { sprites, generatedAt };
}

/** Read sprite-ids.json: path → id for well-formed ids not already used by an earlier path. */
function readIds(data: unknown, report: Report): Map<string, string> {
  const f = SPRITE_IDS_FILE;
  const ids = new Map<string, string>();
  if (data === undefined) return ids;
  if (!isRecord(data) || !isRecord(data.ids)) {
    report(
      'sprites/source-shape',
      f,
      isRecord(data) ? '/ids' : '',
      `${f} must be { version, ids: { "<sprite path>": "SPRT-…" } }; every id is derived from its path instead.`,
    );
    return ids;
  }
  const owner = new Map<string, string>();
  for (const [path, id] of Object.entries(data.ids)) {
    const at = pointer('ids', path);
    if (typeof id !== 'string' || !SPRITE_ID_RE.test(id)) {
      report(
        'sprites/id-format',
        f,
        at,
        `id ${JSON.stringify(id)} of "${path}" is not SPRT-{8 hex}-{6 hex} in upper case; the path gets a derived id until it is fixed.`,
      );
      continue;
    }
    const prev = owner.get(id);
    if (prev !== undefined) {
      report(
        'sprites/duplicate-id',
        f,
        at,
        `id ${id} of "${path}" already belongs to "${prev}"; "${path}" gets a derived id. Give each path its own id.`,
      );
      continue;
    }
    owner.set(id, path);
    ids.set(path, id);
  }
  return ids;
}

interface CharacterSource {
  readonly name: string;
  readonly category: string;
  readonly basePath: string;
  readonly animations: readonly (readonly [string, string])[];
  readonly at: string;
}

/** Read sprite-characters.json: valid characters with unique base paths. */
function readCharacters(data: unknown, report: Report): CharacterSource[] {
  const f = SPRITE_CHARACTERS_FILE;
  const out: CharacterSource[] = [];
  if (data === undefined) return out;
  if (!isRecord(data) || !Array.isArray(data.characters)) {
    report(
      'sprites/source-shape',
      f,
      isRecord(data) ? '/characters' : '',
      `${f} must be { version, characters: [...] }; no character is registered.`,
    );
    return out;
  }
  const seen = new Map<string, string>();
  (data.characters as unknown[]).forEach((c, i) => {
    const at = (...rest: (string | number)[]): string => pointer('characters', i, ...rest);
    if (!isRecord(c)) {
      report('sprites/source-shape', f, at(), `character ${i} must be { name, category, basePath, animations }; it is not registered.`);
      return;
    }
    let bad = false;
    for (const field of ['name', 'category', 'basePath'] as const) {
      if (typeof c[field] !== 'string' || c[field].trim() === '') {
        report('sprites/source-shape', f, at(field), `character ${i} needs a non-blank string "${field}"; it is not registered.`);
        bad = true;
      }
    }
    const animations: [string, string][] = [];
    if (!isRecord(c.animations)) {
      report(
        'sprites/source-shape',
        f,
        at('animations'),
        `character ${i} needs "animations": { <name>: "<sprite path>" }; it is not registered.`,
      );
      bad = true;
    } else {
      for (const [anim, path] of Object.entries(c.animations)) {
        if (typeof path !== 'string' || path === '') {
          report(
            'sprites/source-shape',
            f,
            at('animations', anim),
            `animation "${anim}" of character ${i} must be a sprite path string; it is not registered.`,
          );
          bad = true;
        } else animations.push([anim, path]);
      }
    }
    if (bad) return;
    const basePath = c.basePath as string;
    const first = seen.get(basePath);
    if (first !== undefined) {
      report(
        'sprites/duplicate-character',
        f,
        at('basePath'),
        `basePath "${basePath}" is already used at ${first}; characters are identified by their base path. This one is not registered.`,
      );
      return;
    }
    seen.set(basePath, at());
    if (!/^\/sprites\/characters\/[^/]+\/$/.test(basePath)) {
      report('sprites/character-base-path', f, at('basePath'), `basePath "${basePath}" is not of the form /sprites/characters/<name>/.`);
    }
    out.push({
      name: c.name as string,
      category: c.category as string,
      basePath,
      animations: animations.sort(byCodeUnits((a) => a[0])),
      at: at(),
    });
  });
  return out;
}

const byName = byCodeUnits<CharacterRecord>((c) => c.name);
const byUuid = byCodeUnits<CharacterRecord>((c) => c.uuid);

/**
 * Assign a SPRT id to every sprite path and character base path: valid existing ids stay with their
 * path; the rest get `deriveSpriteId(ns, path)` in path order (`path#n` on the rare collision).
 * @returns path → id, and how many sprite ids were derived rather than kept.
 */
function assignIds(
  sources: readonly { readonly path: string }[],
  existing: ReadonlyMap<string, string>,
  characters: readonly { readonly basePath: string }[],
  ns: string,
  report: Report,
): { idOf: Map<string, string>; derived: number } {
  const taken = new Map<string, string>();
  for (const [path, id] of existing) taken.set(id, path);
  const idOf = new Map<string, string>();
  let derived = 0;
  const spritePaths = new Set(sources.map((s) => s.path));
  const wanted = [...new Set([...spritePaths, ...characters.map((c) => c.basePath)])].sort();
  for (const path of wanted) {
    const kept = existing.get(path);
    if (kept !== undefined) {
      idOf.set(path, kept);
      continue;
    }
    let id = deriveSpriteId(ns, path);
    for (let n = 1; taken.has(id); n++) {
      const other = taken.get(id);
      report(
        'sprites/duplicate-id',
        SPRITE_IDS_FILE,
        other !== undefined && existing.has(other) ? pointer('ids', other) : '',
        `the id derived for "${path}" (${id}) is already the id of "${other ?? ''}"; "${path}" gets the id derived from "${path}#${n}".`,
      );
      id = deriveSpriteId(ns, `${path}#${n}`);
    }
    taken.set(id, path);
    idOf.set(path, id);
    if (spritePaths.has(path)) derived++;
  }
  return { idOf, derived };
}

/**
 * Sprite path → SPRT id exactly as the sprite registry assigns them (for other derivers, e.g. the
 * search index); problems are not reported here (the sprite deriver reports them once).
 */
export function spriteIdsOf(docs: DeriveContext['docs'], namespace: string): Map<string, string> {
  const silent: Report = () => undefined;
  const { sprites } = readSprites(docs.get(SPRITES_SOURCE_FILE)?.data, silent);
  const existing = readIds(docs.get(SPRITE_IDS_FILE)?.data, silent);
  const characters = readCharacters(docs.get(SPRITE_CHARACTERS_FILE)?.data, silent);
  return assignIds(sprites, existing, characters, namespace, silent).idOf;
}

/**
 * Derive the sprite registry, its search index, the character registry and the sprite stats.
 * Pure: reads `ctx.docs` and `ctx.config` (`namespaces.sprite`, `cdnUrl`, `versions.spriteRegistry`),
 * reports through `ctx.report` with the rules of {@link SPRITE_RULES}, never throws on bad input.
 * @returns the 4 files named in `api/_lib/formats/registries.ts` (sprite registry, sprite search index,
 * character registry, sprite stats).
 */
export const deriveSprites: Deriver = (ctx: DeriveContext): readonly Emitted[] => {
  const report: Report = (rule, file, ptr, message) => ctx.report({ rule, file, pointer: ptr, message });
  const version = ctx.config.versions.spriteRegistry ?? DEFAULT_SPRITE_REGISTRY_VERSION;
  const ns = ctx.config.namespaces.sprite;

  const { sprites: sources, generatedAt } = readSprites(ctx.docs.get(SPRITES_SOURCE_FILE)?.data, report);
  const existing = readIds(ctx.docs.get(SPRITE_IDS_FILE)?.data, report);
  const characters = readCharacters(ctx.docs.get(SPRITE_CHARACTERS_FILE)?.data, report);

  const { idOf, derived } = assignIds(sources, existing, characters, ns, report);
  const spritePaths = new Set(sources.map((s) => s.path));
  const basePaths = new Set(characters.map((c) => c.basePath));
  for (const path of existing.keys()) {
    if (!spritePaths.has(path) && !basePaths.has(path)) {
      report(
        'sprites/stale-id',
        SPRITE_IDS_FILE,
        pointer('ids', path),
        `"${path}" is neither a sprite of ${SPRITES_SOURCE_FILE} nor a character base path; its id stays reserved. Remove the entry if the sprite is gone for good.`,
      );
    }
  }

  const sprites: SpriteRecord[] = sources
    .map((s) => ({
      uuid: idOf.get(s.path) as string,
      name: s.name,
      path: s.path,
      url: cdnFileUrl(ctx.config.cdnUrl, s.path),
      category: s.category,
      subcategory: s.subcategory,
      source: s.source,
    }))
    .sort(byCodeUnits((s) => s.path));
  const spriteCategories = countsOf(sprites.map((s) => s.category));

  const chars: CharacterRecord[] = characters
    .map((c) => {
      const animations: Record<string, CharacterAnimation> = {};
      for (const [anim, path] of c.animations) {
        const known = spritePaths.has(path);
        if (!known) {
          report(
            'sprites/unknown-animation',
            SPRITE_CHARACTERS_FILE,
            `${c.at}${pointer('animations', anim)}`,
            `animation "${anim}" of "${c.name}" names "${path}", which is not a sprite of ${SPRITES_SOURCE_FILE}; its uuid is null.`,
          );
        }
        animations[anim] = { path, uuid: known ? (idOf.get(path) as string) : null };
      }
      return { uuid: idOf.get(c.basePath) as string, name: c.name, category: c.category, basePath: c.basePath, animations };
    })
    .sort((a, b) => byName(a, b) || byUuid(a, b));
  const characterCategories = countsOf(chars.map((c) => c.category));

  const registry: SpriteRegistryFile = { version, generatedAt, total: sprites.length, categories: spriteCategories, sprites };
  const searchIndex = buildTermIndex(
    version,
    sprites.map((s) => s.uuid),
    (i) => {
      const s = sprites[i] as SpriteRecord;
      return [s.name, s.path.replace(/\.[^./]+$/, ''), s.category, s.subcategory, s.source];
    },
  );
  const characterRegistry: CharacterRegistryFile = { version, total: chars.length, categories: characterCategories, characters: chars };
  const stats: SpriteStatsFile = {
    sprites: { total: sprites.length, derivedIds: derived, categories: spriteCategories },
    characters: { total: chars.length, categories: characterCategories },
  };
  return [
    { path: SPRITE_REGISTRY_FILE, body: registry },
    { path: SPRITE_SEARCH_INDEX_FILE, body: searchIndex },
    { path: CHARACTER_REGISTRY_FILE, body: characterRegistry },
    { path: SPRITE_STATS_FILE, body: stats },
  ];
};
