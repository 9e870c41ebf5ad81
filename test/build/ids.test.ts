/**
 * Identifier derivation (spec 2.6) against the real input → id pairs of shared/fixtures/id-vectors.json:
 * every SKIL and ICON pair is reproduced, every real SPRT id matches the family pattern, and derived
 * SPRT ids have that form too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveIconId, deriveSkillId, deriveSpriteId, GROUPED_ID_RE, SPRITE_ID_RE } from '../../build/pipeline/ids.js';
import { ID_VECTORS } from '../helpers/catalog.js';

const vectorsFile = ID_VECTORS;

interface Vectors {
  skill: { namespace: string; pairs: { input: string; id: string }[] };
  icon: { namespace: string; pairs: { input: string; id: string }[] };
  sprite: { pattern: string; pairs: { path: string; id: string }[] };
}
const vectors = JSON.parse(readFileSync(vectorsFile, 'utf8')) as Vectors;

describe('SKIL ids (spec 2.6)', () => {
  it('has vectors to check', () => expect(vectors.skill.pairs.length).toBeGreaterThan(0));
  it.each(vectors.skill.pairs)('$input → $id', ({ input, id }) => {
    expect(deriveSkillId(vectors.skill.namespace, input)).toBe(id);
    expect(id).toMatch(GROUPED_ID_RE);
  });
  it('depends on the namespace', () => {
    const p = vectors.skill.pairs[0];
    expect(p).toBeDefined();
    if (p) expect(deriveSkillId('studio-skill:', p.input)).not.toBe(p.id);
  });
});

describe('ICON ids (spec 2.6)', () => {
  it('has vectors to check', () => expect(vectors.icon.pairs.length).toBeGreaterThan(0));
  it.each(vectors.icon.pairs)('$input → $id', ({ input, id }) => {
    expect(deriveIconId(vectors.icon.namespace, input)).toBe(id);
    expect(id).toMatch(GROUPED_ID_RE);
  });
  it('is keyed by the full object key, not the path below the prefix', () => {
    const p = vectors.icon.pairs[0];
    expect(p).toBeDefined();
    if (p) expect(deriveIconId(vectors.icon.namespace, p.input.replace('game-assets/icons/', ''))).not.toBe(p.id);
  });
});

describe('SPRT ids (spec 2.6)', () => {
  const pattern = new RegExp(vectors.sprite.pattern);
  it('the library pattern agrees with the fixture pattern', () => {
    for (const s of [
      'SPRT-C39EF105-6A129F',
      'SPRT-c39ef105-6a129f',
      'SPRT-C39EF105-6A129',
      'SPRT-C39EF1050-6A129F',
      'SPRX-C39EF105-6A129F',
    ]) {
      expect(SPRITE_ID_RE.test(s)).toBe(pattern.test(s));
    }
  });
  it.each(vectors.sprite.pairs)('real id of $path matches the pattern', ({ id }) => {
    expect(id).toMatch(pattern);
    expect(id).toMatch(SPRITE_ID_RE);
  });
  it.each(vectors.sprite.pairs)('a derived id for $path has the SPRT form and is stable', ({ path }) => {
    const a = deriveSpriteId('studio-sprite:', path);
    expect(a).toMatch(pattern);
    expect(deriveSpriteId('studio-sprite:', path)).toBe(a);
    expect(deriveSpriteId('other-sprite:', path)).not.toBe(a);
  });
});

describe('timestamp family format (spec 2.6)', () => {
  it('takes three- and four-letter families and nothing else', async () => {
    const { TIMESTAMP_ID_RE } = await import('../../build/pipeline/ids.js');
    expect(TIMESTAMP_ID_RE.test('MNT-20260422050330-000322-0583BA27')).toBe(true);
    expect(TIMESTAMP_ID_RE.test('ITEM-20260422050330-000322-0583BA27')).toBe(true);
    for (const bad of [
      'MN-20260422050330-000322-0583BA27',
      'ITEMS-20260422050330-000322-0583BA27',
      'ITEM-2026042205033-000322-0583BA27',
      'ITEM-20260422050330-000322-0583ba27',
    ]) {
      expect(TIMESTAMP_ID_RE.test(bad), bad).toBe(false);
    }
  });
});

describe('id patterns refuse near misses (spec 2.6)', () => {
  it('SKIL and ICON: family, four upper-case hex digits per group, anchored both ends', async () => {
    const { GROUPED_ID_RE: re, TIMESTAMP_ID_RE } = await import('../../build/pipeline/ids.js');
    for (const good of ['SKIL-0A1B-2C3D-4E5F', 'ICON-FFFF-0000-9999']) expect(re.test(good), good).toBe(true);
    for (const bad of [
      'SPRT-0A1B-2C3D-4E5F',
      'SKIL-0a1b-2c3d-4e5f',
      'SKIL-0A1-2C3D-4E5F',
      'SKIL-0A1B-2C3D-4E5',
      'SKIL-0A1B-2C3D-4E5G',
      'SKIL-0A1B-2C3D-4E5F0',
      'xSKIL-0A1B-2C3D-4E5F',
      'SKIL-0A1B-2C3D-4E5F ',
      'ICON-0A1B-2C3D',
    ]) {
      expect(re.test(bad), bad).toBe(false);
    }
    // anchored at the start too
    expect(TIMESTAMP_ID_RE.test('xITEM-20260422050330-000322-0583BA27')).toBe(false);
    expect(TIMESTAMP_ID_RE.test('ITEM-20260422050330-000322-0583BA270')).toBe(false);
    expect(TIMESTAMP_ID_RE.test('ITEM-20260422050330-00032G-0583BA27')).toBe(false);
    expect(TIMESTAMP_ID_RE.test('ITEM-2026042205033x-000322-0583BA27')).toBe(false);
    expect(TIMESTAMP_ID_RE.test('item-20260422050330-000322-0583BA27')).toBe(false);
  });

  it('SPRT: eight and six upper-case hex digits, anchored both ends', () => {
    expect(SPRITE_ID_RE.test('SPRT-0123ABCD-EF4567')).toBe(true);
    for (const bad of [
      'xSPRT-0123ABCD-EF4567',
      'SPRT-0123ABCD-EF45678',
      'SPRT-0123ABCG-EF4567',
      'SPRT-0123ABCD-EF456G',
      'SPRT-0123ABC-EF4567',
    ]) {
      expect(SPRITE_ID_RE.test(bad), bad).toBe(false);
    }
  });

  it('derived ids are the upper-case SHA-1 digits of namespace + input, grouped', () => {
    // SHA-1("abc") = A9993E364706816ABA3E25717850C26C9CD0D89D
    expect(deriveSkillId('a', 'bc')).toBe('SKIL-A999-3E36-4706');
    expect(deriveIconId('ab', 'c')).toBe('ICON-A999-3E36-4706');
    expect(deriveSpriteId('', 'abc')).toBe('SPRT-A9993E36-470681');
    // inputs are hashed as UTF-8: SHA-1 of the bytes C3 A9 ("é")
    expect(deriveSpriteId('', 'é')).toBe('SPRT-BF15BE71-7AC1B0');
  });
});
