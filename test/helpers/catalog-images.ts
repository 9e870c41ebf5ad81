/**
 * Every picture the catalog browser (site/) shows for a built catalog: the icon and sprite grids' tiles,
 * and each item page's picture, found with the page's own rule (`recordImage`, site/records.ts; an icon
 * named by `iconUuid` through the icon registry, spec §4.6; a model's preview through the asset manifest,
 * §2.4), and every preview the asset manifest names (`previewUrl`, what asset search answers show). Read
 * from the build output, so a test can ask the local server for each (docs/architecture.md, "Sample binaries").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTION_DEFS, COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { isRecord } from '../../api/_lib/util/json.js';
import { STATIC_SOURCES, STATIC_KINDS, type ItemKind } from '../../site/kinds.js';
import { recordImage, recordsAt } from '../../site/records.js';

/** One picture: where the browser shows it, and its URL. */
export interface CatalogImage {
  /** e.g. `icons grid: Lantern`, `weapons page: ITEM-…`. */
  readonly where: string;
  readonly url: string;
}

type Rec = Record<string, unknown>;

function readJson(out: string, file: string): unknown {
  const path = join(out, 'api/v1', file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as unknown) : undefined;
}

function list(doc: unknown, member: string): Rec[] {
  return isRecord(doc) && Array.isArray(doc[member]) ? (doc[member] as unknown[]).filter(isRecord) : [];
}

/**
 * The pictures of the catalog built into `out` (its `{cdn_url}` is the manifest's `cdnUrl`), in a fixed
 * order, one entry per place (a URL shown in two places is listed twice).
 */
export function catalogImages(out: string): CatalogImage[] {
  const manifest = readJson(out, 'game-data-manifest.json');
  const cdn = isRecord(manifest) && typeof manifest.cdnUrl === 'string' ? manifest.cdnUrl : undefined;
  const icons = list(readJson(out, 'icon-registry.json'), 'icons');
  const iconUrl = new Map(icons.map((i) => [String(i.iconUuid), String(i.url)]));
  const assets = list(readJson(out, 'studiodot-assets.json'), 'assets');
  const modelPreview = new Map(
    assets.filter((a) => a.type === 'model' && typeof a.previewUrl === 'string').map((a) => [String(a.url), String(a.previewUrl)]),
  );
  const images: CatalogImage[] = [];
  const page = (kind: ItemKind, record: Rec, label: string): void => {
    const image = recordImage(record, kind, cdn);
    const url =
      image.type === 'url'
        ? image.url
        : image.type === 'icon'
          ? iconUrl.get(image.id)
          : image.type === 'model'
            ? modelPreview.get(image.url)
            : undefined;
    if (url) images.push({ where: `${kind} page: ${label}`, url });
  };
  for (const icon of icons) {
    images.push({ where: `icons grid: ${String(icon.name)}`, url: String(icon.url) });
    page('icons', icon, String(icon.iconUuid));
  }
  for (const sprite of list(readJson(out, 'sprite-registry.json'), 'sprites')) {
    images.push({ where: `sprites grid: ${String(sprite.name)}`, url: String(sprite.url) });
    page('sprites', sprite, String(sprite.uuid));
  }
  for (const character of list(readJson(out, 'character-registry.json'), 'characters'))
    page('characters', character, String(character.uuid));
  for (const kind of STATIC_KINDS)
    for (const source of STATIC_SOURCES[kind]) {
      const doc = readJson(out, source.file);
      if (doc !== undefined)
        for (const { record, pointer } of recordsAt(doc, source.arrays)) page(kind, record, `${source.file}#${pointer}`);
    }
  for (const name of COLLECTION_NAMES) {
    const def = COLLECTION_DEFS[name];
    for (const record of list(readJson(out, `${def.dataset}.json`), def.arrayKey)) page(name, record, String(record.id ?? record.uuid));
  }
  for (const asset of assets)
    if (typeof asset.previewUrl === 'string')
      images.push({ where: `asset manifest: ${String(asset.name)} preview`, url: asset.previewUrl });
  return images;
}
