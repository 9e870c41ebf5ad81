/**
 * Deterministic identifier derivation (spec 2.6).
 *
 * - SKIL-XXXX-XXXX-XXXX: first 12 upper-case hex digits of SHA-1(skill namespace + skill id), in groups of four.
 * - ICON-XXXX-XXXX-XXXX: the same over (icon namespace + object-storage key).
 * - SPRT-{8hex}-{6hex}: the registry keeps existing path → id pairs; a new path gets the first 14 hex digits
 *   of SHA-1(sprite namespace + path), split 8/6, so that it is the same in every build.
 * Reproduces every pair of `shared/fixtures/id-vectors.json` (tested).
 */
// @ts-nocheck

import { createHash } from 'node:crypto';

function sha1Hex(input: string): string {
  return createHash('sha1').update(input, 'utf8').digest('hex').toUpperCase();
}

/** `PREFIX-XXXX-XXXX-XXXX` from SHA-1(namespace + input). */
function deriveGroupedId(prefix: 'SKIL' | 'ICON', namespace: string, input: string): string {
  const h = sha1Hex(namespace + input);
  return `${prefix}-${h.slice(0, 4)}-${h.slice(4, 8)}-${h.slice(8, 12)}`;
}

/** SKIL id of a skill definition from its namespaced skill id (spec 2.6), e.g. `sword_vengeful_slash`. */
export function deriveSkillId(namespace: string, skillId: string): string {
  return deriveGroupedId('SKIL', namespace, skillId);
}

/** ICON id of an icon asset from its namespaced object-storage key (spec 2.6), e.g. `game-assets/icons/a.png`. */
export function deriveIconId(namespace: string, objectKey: string): string {
  return deriveGroupedId('ICON', namespace, objectKey);
}

/** Deterministic SPRT id for a sprite path that has no id yet (spec 2.6 form `SPRT-{8hex}-{6hex}`). */
export function deriveSpriteId(namespace: string, path: string): string {
  const h = sha1Hex(namespace + path);
  return `SPRT-${h.slice(0, 8)}-${h.slice(8, 14)}`;
}

/** Pattern of SKIL and ICON ids. */
export const GROUPED_ID_RE = /^(SKIL|ICON)-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$/;
/** Pattern of sprite registry ids. */
export const SPRITE_ID_RE = /^SPRT-[0-9A-F]{8}-[0-9A-F]{6}$/;
/** Pattern of the timestamp family (ITEM/RECP/MATL/FOOD/POTN/CONS/RELC/ENCH/INFU/MNT/... stored keys): a three- or four-letter family (MNT has three, spec 2.6), 14 digits, 6 and 8 hex digits. */
export const TIMESTAMP_ID_RE = /^[A-Z]{3,4}-\d{14}-[0-9A-F]{6}-[0-9A-F]{8}$/;
