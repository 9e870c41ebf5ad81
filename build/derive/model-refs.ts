/**
 * `modelRef` against the asset index (spec 4.9: "point `modelRef` at the id or key"). When the catalog
 * config names an exported asset index (`assetIndex`, written by `npm run assets -- export`), every string
 * `modelRef` anywhere in the catalog that is not an item id must be a key registered there, so no record
 * points at a model that was never uploaded and registered. Without an index the rule is silent.
 *
 * Pure: reads `ctx.config.assetIndex` and `ctx.docs`, reports through `ctx.report`, emits nothing.
 */
import { escapePointer } from '../../api/_lib/util/json.js';
import type { DeriveContext, Deriver, Emitted, RuleDef } from '../pipeline/types.js';

/** Rules of this deriver. */
export const MODEL_REF_RULES: readonly RuleDef[] = [
  {
    name: 'assets/model-ref',
    severity: 'error',
    description: 'With an asset index configured, every modelRef that is not an item id is a key registered in the index (spec 4.9).',
  },
];

/** An item id (`ITEM-…`, any four-letter family, spec 2.6) rather than a storage key. */
const ITEM_ID = /^[A-Z]{4}-[0-9A-Z-]+$/;

/** Every string `modelRef` under `value`, with its JSON pointer. */
function* modelRefs(value: unknown, pointer: string): Generator<[string, string]> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* modelRefs(value[i], `${pointer}/${i}`);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = `${pointer}/${escapePointer(k)}`;
      if (k === 'modelRef' && typeof v === 'string') yield [v, p];
      else yield* modelRefs(v, p);
    }
  }
}

/** See the module header. */
export const deriveModelRefs: Deriver = (ctx: DeriveContext): readonly Emitted[] => {
  const index = ctx.config.assetIndex;
  if (!index) return [];
  for (const [file, doc] of ctx.docs) {
    for (const [ref, pointer] of modelRefs(doc.data, '')) {
      if (ITEM_ID.test(ref) || index.keys.has(ref)) continue;
      ctx.report({
        rule: 'assets/model-ref',
        file,
        pointer,
        message: `modelRef "${ref.slice(0, 200)}" is no key of the asset index ${index.file}; upload and register the model (npm run assets -- upload), export the index again, or point modelRef at the item id.`,
      });
    }
  }
  return [];
};
