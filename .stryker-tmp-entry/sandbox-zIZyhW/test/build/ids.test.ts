/**
 * Identifier derivation (spec 2.6) against the real input → id pairs of shared/fixtures/id-vectors.json:
 * every SKIL and ICON pair is reproduced, every real SPRT id matches the family pattern, and derived
 * SPRT ids have that form too.
 */
// @ts-nocheck

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
    for (const s of ['SPRT-C39EF105-6A129F', 'SPRT-c39ef105-6a129f', 'SPRT-C39EF105-6A129', 'SPRT-C39EF1050-6A129F', 'SPRX-C39EF105-6A129F']) {
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
    for (const bad of ['MN-20260422050330-000322-0583BA27', 'ITEMS-20260422050330-000322-0583BA27', 'ITEM-2026042205033-000322-0583BA27', 'ITEM-20260422050330-000322-0583ba27']) {
      expect(TIMESTAMP_ID_RE.test(bad), bad).toBe(false);
    }
  });
});
