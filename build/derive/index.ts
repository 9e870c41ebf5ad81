/**
 * The derive stage's plug-ins: every pure deriver beyond the core ones, with the rules it reports.
 * The pipeline runs them in this order; each sees the same read-only context.
 */
import type { Deriver, RuleDef } from '../pipeline/types.js';

/** A named deriver and its rules. */
export interface DeriverEntry {
  readonly name: string;
  readonly derive: Deriver;
  readonly rules: readonly RuleDef[];
}

/** Derivers run by every build (collections, icons, sprites, assets). */
export const DERIVERS: readonly DeriverEntry[] = [];
