/**
 * The derive stage's plug-ins: every pure deriver beyond the core ones, with the rules it reports.
 * The pipeline runs them in this order; each sees the same read-only context.
 */
import type { Deriver, RuleDef } from '../pipeline/types.js';
import { ASSET_RULES, deriveAssets } from './assets.js';
import { collectionRules, deriveCollections } from './collections.js';
import { deriveIcons, ICON_RULES } from './icons.js';
import { deriveModelRefs, MODEL_REF_RULES } from './model-refs.js';
import { deriveSprites, SPRITE_RULES } from './sprites.js';

/** A named deriver and its rules. */
export interface DeriverEntry {
  readonly name: string;
  readonly derive: Deriver;
  readonly rules: readonly RuleDef[];
}

/** Derivers run by every build (collections, icons, sprites, assets, model references). */
export const DERIVERS: readonly DeriverEntry[] = [
  { name: 'collections', derive: deriveCollections, rules: collectionRules },
  { name: 'icons', derive: deriveIcons, rules: ICON_RULES },
  { name: 'sprites', derive: deriveSprites, rules: SPRITE_RULES },
  { name: 'assets', derive: deriveAssets, rules: ASSET_RULES },
  { name: 'model-refs', derive: deriveModelRefs, rules: MODEL_REF_RULES },
];
