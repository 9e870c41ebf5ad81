/**
 * Catalog ids as the console names them (docs/architecture.md, "Operator console"): a definition id of the
 * bag, a unique item's definition, a learned recipe or a skill becomes its name, its icon and a link to the
 * catalog browser's item page, read from the published catalog the way the catalog browser reads it
 * (`site/data.ts`: the master registry `master-registry.json` names every definition's kind, name, file and
 * pointer; the record's `iconUuid` is looked up in the icon registry `/api/v1/icons/{id}`, spec §4.1, §4.6;
 * the item page's address is `site/state.ts`'s `itemHref`). Each id is read once per page.
 */
import { cdnUrl, masterRegistry, recordImageUrl, resolveItem } from '../data.js';
import { kindOfId, kindOfRegistryKind, type ItemKind } from '../kinds.js';
import { recordImage } from '../records.js';
import { itemHref } from '../state.js';

/** What the catalog says of an id: its name and kind when known, and the item page's address. */
export interface CatalogEntry {
  readonly id: string;
  /** The definition's name, or undefined when the catalog does not name it. */
  readonly name: string | undefined;
  /** The kind of item page that shows it, or undefined when the id is of no family the catalog knows. */
  readonly kind: ItemKind | undefined;
  /** `/?view=item&kind=…&id=…`, or undefined when there is no page for it. */
  readonly href: string | undefined;
}

const entries = new Map<string, Promise<CatalogEntry>>();
const icons = new Map<string, Promise<string | undefined>>();

/**
 * The catalog's entry for `id` (see the module header): the master registry's name and kind, else the
 * kind of its id family (spec 2.6) with no name.
 */
export function catalogEntry(id: string): Promise<CatalogEntry> {
  let hit = entries.get(id);
  if (!hit) {
    hit = masterRegistry().then((registry) => {
      const entry = registry[id];
      const kind = entry ? kindOfRegistryKind(entry.kind) : kindOfId(id);
      return { id, name: entry?.name ?? undefined, kind, href: kind ? itemHref(kind, id) : undefined };
    });
    entries.set(id, hit);
    hit.catch(() => entries.delete(id));
  }
  return hit;
}

/** The URL of `id`'s icon on `{cdn_url}`, or undefined when its record names none (or cannot be found). */
export function catalogIcon(id: string): Promise<string | undefined> {
  let hit = icons.get(id);
  if (!hit) {
    hit = catalogEntry(id).then(async (entry) => {
      if (!entry.kind) return undefined;
      try {
        const item = await resolveItem(entry.kind, id);
        return await recordImageUrl(recordImage(item.record, item.kind, await cdnUrl()));
      } catch {
        return undefined;
      }
    });
    icons.set(id, hit);
  }
  return hit;
}
