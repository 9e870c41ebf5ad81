/**
 * The operation table: what each route of the route table (`api/_lib/routing/table.ts`) takes and answers,
 * for the OpenAPI document (`build/openapi/document.ts`) and the typed client generated from it (`client/`).
 *
 * Nothing here repeats a schema or a rule the functions enforce:
 * - query parameters are the very `ParamSpec` objects the handlers parse with (imported from the entries
 *   and `api/_lib/http/collection-params.ts`);
 * - request and response bodies are named by their schema under `schemas/` (`requests/…`, `responses/…`,
 *   `output/…`), the files the functions and the tests validate with;
 * - who may call a route is the route table's declaration (`access`), which the entry helper applies.
 * What is only here is prose (summary, description), examples (a test validates each against its schema and
 * sends it to the handler), and which refusals a route can answer (`errors`; the generator adds those that
 * follow from the route's access, the parameters and the body).
 *
 * Spec sections: §4.1-§4.9 (routes), §5.3-§5.5 (access), §7 (errors).
 */
import { EXPORT_PARAMS, SEARCH_PARAMS } from '../../api/catalog.js';
import { SPECS as REGISTRY_PARAMS } from '../../api/registries.js';
import { LIST_SPEC, MAX_MULTI_FILES } from '../../api/storage.js';
import { OVERVIEW_PARAMS } from '../../api/wallet.js';
import {
  AUDIT_PARAMS,
  BAG_HISTORY_PARAMS,
  ITEM_EVENT_PARAMS,
  ITEM_LIST_PARAMS,
  LEDGER_VERIFY_PARAMS,
  PLAYER_SEARCH_PARAMS,
} from '../../api/admin.js';
import { PLAYER_PARAMS } from '../../api/player.js';
import { MERGE_PATCH_TYPES } from '../../api/_lib/http/body.js';
import { LOOKUP_PARAM_SPEC, listParamSpec } from '../../api/_lib/http/collection-params.js';
import { COLLECTION_NAMES, type CollectionName } from '../../api/_lib/formats/collection-index.js';
import type { ErrorCode } from '../../api/_lib/errors.js';
import type { ParamSpec } from '../../api/_lib/http/params.js';
import type { EntryName, Method } from '../../api/_lib/routing/table.js';

/** A request body: JSON (or a JSON merge patch) checked against a request schema, or a multipart form. */
export type BodySpec =
  | {
      readonly kind: 'json';
      /** Schema name under `schemas/`, e.g. `requests/create-account`. */
      readonly schema: string;
      /** Media types taken, the handler's own constant (`api/_lib/http/body.ts`); default `application/json`. */
      readonly mediaTypes?: readonly string[];
      /** A body that passes the schema (checked by a test). */
      readonly example: unknown;
      /** For a merge patch: the schema the stored document must match once the patch is merged into it. */
      readonly merged?: string;
    }
  | {
      readonly kind: 'multipart';
      /** Schema of the text fields, e.g. `requests/storage-upload`. */
      readonly schema: string;
      /** The file field and how many files it takes. */
      readonly files: { readonly field: string; readonly min: number; readonly max: number; readonly description: string };
    };

/** A success answer. */
export interface SuccessSpec {
  readonly status: 200 | 201 | 204;
  readonly description: string;
  /** Schema name under `schemas/` of the JSON body; none for 204. */
  readonly schema?: string;
  /** Another representation of the same answer, e.g. `text/csv` for the export. */
  readonly alternative?: { readonly mediaType: string; readonly description: string };
  /** Response headers worth naming (name → description). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One operation: a route of the table and one of its methods. */
export interface OperationSpec {
  readonly entry: EntryName;
  /** Route name in the route table. */
  readonly route: string;
  readonly method: Method;
  /** Unique, camelCase: the typed client's function name. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  /** Group shown by the docs page. */
  readonly tag: Tag;
  /** The query parameters the handler parses (it refuses any other); absent when it reads none. */
  readonly query?: Readonly<Record<string, ParamSpec>>;
  /** What the `{key}` of the path names. */
  readonly key?: string;
  /** An example `{key}` for the docs and the request tests. */
  readonly keyExample?: string;
  readonly body?: BodySpec;
  readonly success: readonly SuccessSpec[];
  /** Refusals beyond those that follow from access, query, key and body (see the module header). */
  readonly errors?: readonly ErrorCode[];
  /** True when the answer carries `Cache-Control: public`, an `ETag`, and 304 on `If-None-Match`. */
  readonly cacheable?: boolean;
  /** True when the request must carry `If-Match` (412 on a stale one, 428 without). */
  readonly ifMatch?: boolean;
  /** Example query values for the docs and the request tests (they must pass `query`). */
  readonly queryExample?: Readonly<Record<string, string>>;
}

/** A static file of the output described in the document (the CDN serves it; no function runs). */
export interface StaticFileSpec {
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  /** Schema name under `schemas/`; none when the file's shape depends on which file it is. */
  readonly schema?: string;
  /** What the `{file}` of the path names, when it has one. */
  readonly file?: string;
}

/** Tags, in the order the docs page lists them, with their descriptions. */
export const TAGS = {
  catalog: 'Search, totals and exports over the published catalog (§4.4).',
  'static files': 'Files of the build, served by the CDN as they are (§4.1, §9).',
  collections: 'Relics, enchants, infusions and artifacts with filters and paging (§4.2).',
  registries: 'Sprites, characters, icons and the asset manifest (§4.3, §4.5, §4.6).',
  wallet: 'The soft-currency ledger: verify-send and the overview (§4.8, §5.3).',
  admin: 'Operator routes: accounts and coin grants (§2.6, §2.8, §4.8).',
  storage: 'Binaries and their metadata index (§4.7, §4.9).',
  player: 'Home island, characters, recipes and the bag of the caller’s account (§2.8, §2.9, §4.8).',
  identity: 'External login and linking (§5.5).',
  items: 'Unique items: minting and the item ledger (§2.6, §4.8).',
} as const;

/** One tag name. */
export type Tag = keyof typeof TAGS;

const IDEMPOTENCY =
  'Idempotent on `idempotencyKey`, forever: the same key with the same request answers the first result with ' +
  '`Idempotent-Replayed: true` and changes nothing; the same key with another request is 422 `IDEMPOTENCY_KEY_REUSED`.';
/** Who writes which field of player state (`api/_lib/player/authority.ts`). */
const WRITERS =
  'A player’s token writes the fields the player chooses; progression, equipment and world state are a game server’s, and ' +
  'derived fields no request writes: 403 `FORBIDDEN` names each field refused and who writes it.';
/** How a game server names the account it acts for. */
const ACTING_FOR = 'A game server names the account it acts for with `studioId`; a player’s token acts for its own account.';
const REPLAYED = { 'Idempotent-Replayed': '`true` when the answer is the replay of an earlier request with the same idempotency key.' };
const LIMIT_HEADERS = {
  'X-Limit-Requested': 'The `limit` as sent, when it was above the maximum and lowered.',
  'X-Limit-Applied': 'The `limit` applied, when it was lowered.',
};
/** The key rules of storage (§4.7), the same on both adapters (`api/_lib/storage/keys.ts`). */
const STORAGE_KEYS =
  'A key is the folder plus the file’s name (its last path segment), taken in Unicode NFC (both spellings of `é` name one object): at most ' +
  '1,024 bytes of UTF-8 and 255 per segment; no leading `/`, no `\\`, no empty, `.` or `..` segment, no control character, no bidirectional ' +
  'override or isolate, no look-alike of `.`, `/` or `\\` (fullwidth forms, `∕`, `⁄`, `‥`: any character whose compatibility form holds one), ' +
  'and not a route name (`list`, `upload`, `register`, `index`, …) on its own. Spaces and other Unicode are fine. A key already there is replaced.';
/** What storage takes (§4.7; `api/_lib/storage/content-types.ts`). */
const STORED_TYPES =
  'The content type is sniffed from the bytes, never taken from the client, and must be on the allow-list with a fitting extension: images ' +
  'PNG, JPEG, GIF, WebP, AVIF, KTX; models GLB, FBX; audio MP3, Ogg/Opus, WAV, FLAC, M4A; video MP4, WebM. An HTML page named `.png` is ' +
  '`UNKNOWN_TYPE`, a PNG named `.jpg` `EXTENSION_MISMATCH`, a zip named `.png` `TYPE_NOT_ALLOWED`; text formats (SVG, glTF JSON, OBJ) are ' +
  'refused, since nothing in their bytes tells them from a web page. The body is streamed to a temporary file, never held in memory: a file ' +
  'over `STORAGE_MAX_FILE_BYTES` (100 MiB unless configured), more than 10 fields or a field over 1 KiB is 413; a body that is not ' +
  '`multipart/form-data` is 415; a client that goes away mid-upload stores nothing.';
/** What a request storing several files does when the storage fails midway. */
const STORED_ALL_OR_RETRIED = 'If the storage fails while the request stores its files, what it stored is deleted again before the 503.';
/** What the file part of a plain upload is. */
const FILE_NAMED = 'The file’s bytes; its name becomes the last segment of its key.';
const UUID_EXAMPLE = '3f2b8c1e-7a4d-4e6b-9c0f-1d2e3f4a5b6c';

/** An operator's change of an account's sessions or ban (§5.3): `POST /api/admin/players/{studioId}/<route>`. */
function accessOperation(
  route: string,
  operationId: string,
  summary: string,
  description: string,
  schema: string,
  example: Readonly<Record<string, string>>,
): OperationSpec {
  return {
    entry: 'admin',
    route,
    method: 'POST',
    operationId,
    summary,
    description: `${description} ${IDEMPOTENCY}`,
    tag: 'admin',
    key: 'the account’s `STUDIO_*` id',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    body: { kind: 'json', schema, example },
    success: [
      { status: 200, description: 'The account’s access after it (or its replay).', schema: 'responses/account-access', headers: REPLAYED },
    ],
    errors: ['IDEMPOTENCY_KEY_REUSED'],
  };
}

/**
 * The answers of an idempotent create (§4.8): 201 with what was made (with `headers`), and 200 with the same
 * for a replay of its idempotency key (with `replayHeaders` and `Idempotent-Replayed`).
 */
function createdOrReplayed(
  schema: string,
  made: string,
  replayed: string,
  headers?: Readonly<Record<string, string>>,
  replayHeaders: Readonly<Record<string, string>> = {},
): SuccessSpec[] {
  return [
    { status: 201, description: made, schema, ...(headers ? { headers } : {}) },
    { status: 200, description: replayed, schema, headers: { ...replayHeaders, ...REPLAYED } },
  ];
}

const COLLECTION_KEYS: Readonly<Record<CollectionName, { readonly key: string; readonly example: string }>> = {
  relics: { key: 'uuid, id or name slug of the relic', example: 'ember-heart' },
  enchants: { key: 'uuid, id or name slug of the enchant', example: 'enchant-keen-edge' },
  infusions: { key: 'uuid or id of the infusion', example: 'INFU-20260602120000-00015B-B2E82931' },
  artifacts: { key: 'uuid or name slug of the artifact (hidden artifacts are found too)', example: 'lantern-of-the-first-watch' },
};

const collectionOperations = (name: CollectionName): OperationSpec[] => {
  const One = name.charAt(0).toUpperCase() + name.slice(1, -1);
  const Many = name.charAt(0).toUpperCase() + name.slice(1);
  const { key, example } = COLLECTION_KEYS[name];
  return [
    {
      entry: 'collections',
      route: name,
      method: 'GET',
      operationId: `list${Many}`,
      summary: `List ${name}`,
      description:
        `The ${name} in catalog order, filtered and paged by \`limit\` and \`offset\` (\`limit=0\` is 400); \`collection\` names the dataset ` +
        `(\`master-${name}\`). Filters combine with AND and compare words without case and accents; a record whose field holds several ` +
        `values (\`target: "weapon|armor"\`) matches each, and a record without the field matches no value. \`q\` matches a substring within ` +
        `one field (runs of white space count as one space, apostrophes are ignored, ß, æ and ø are spelled out). A filter another ` +
        `collection has is an unknown parameter (400).` +
        (name === 'artifacts' ? ' Artifacts with `discovery.hiddenUntilFound: true` are left out unless `discovered=all`.' : ''),
      tag: 'collections',
      query: listParamSpec(name),
      queryExample: { tier: '3', limit: '20' },
      success: [{ status: 200, description: `A page of ${name}.`, schema: 'responses/collection-list', headers: LIMIT_HEADERS }],
      cacheable: true,
    },
    {
      entry: 'collections',
      route: `${name}-item`,
      method: 'GET',
      operationId: `get${One}`,
      summary: `Get one ${name.slice(0, -1)}`,
      description:
        'Keys compare without case and accents. The name slug is the record’s own `slug` when it has one, else the name lower-cased, ' +
        "accents folded, every run of characters other than `a-z0-9` turned into one `-`, trimmed of dashes (`Sigil of Épée d'Or` → " +
        '`sigil-of-epee-dor`); keys that collide are a build error (a key stays with the uuid’s owner, then the id’s, then the slug’s). ' +
        `The same item is a static file per key, \`/api/v1/${name}/{key}.json\` (named by the key as the record spells it, so that path is ` +
        'case-sensitive), byte for byte the same body.',
      tag: 'collections',
      query: LOOKUP_PARAM_SPEC,
      key,
      keyExample: example,
      success: [{ status: 200, description: `The ${name.slice(0, -1)}.`, schema: 'responses/collection-item' }],
      cacheable: true,
    },
    {
      entry: 'collections',
      route: `${name}-file`,
      method: 'GET',
      operationId: `get${One}File`,
      summary: `Get one ${name.slice(0, -1)} by its static file path`,
      description: `The bytes of \`/api/v1/${name}/{key}.json\`: the CDN serves the file when the build wrote one, this route when it did not (the catalog config's \`itemFileBudget\`).`,
      tag: 'collections',
      query: LOOKUP_PARAM_SPEC,
      key,
      keyExample: example,
      success: [{ status: 200, description: `The ${name.slice(0, -1)}.`, schema: 'responses/collection-item' }],
      cacheable: true,
    },
  ];
};

const registry = (
  route: keyof typeof REGISTRY_PARAMS,
  operationId: string,
  summary: string,
  schema: string,
  extra: Partial<OperationSpec> = {},
): OperationSpec => ({
  entry: 'registries',
  route,
  method: 'GET',
  operationId,
  summary,
  tag: 'registries',
  ...('page' in REGISTRY_PARAMS[route]
    ? { description: 'Paged by `page` (from 1) and `limit`, with the filters echoed in the answer; a page past the end is empty.' }
    : {}),
  query: REGISTRY_PARAMS[route],
  success: [
    {
      status: 200,
      description: summary + '.',
      schema: `responses/${schema}`,
      ...('page' in REGISTRY_PARAMS[route] ? { headers: LIMIT_HEADERS } : {}),
    },
  ],
  cacheable: true,
  ...extra,
});

/** A bag change of the game servers (§2.6, §2.8): grant or consume, the same body and answers. */
function bagChange(
  route: string,
  operationId: string,
  summary: string,
  description: string,
  example: Readonly<Record<string, unknown>>,
  errors: readonly ErrorCode[],
): OperationSpec {
  return {
    entry: 'player',
    route,
    method: 'POST',
    operationId,
    summary,
    description: `${description} Stackables are the \`MATL-*\` materials of \`master-materials.json\` and the consumables of \`canonical-items-manifest.json\`, held as quantities without a per-stack id; 1 to 1,000,000 units per change, recorded append-only under the source ref \`${route === 'inventory-grant' ? 'bag-grant' : 'bag-consume'}:{idempotencyKey}\`. The bag is the account's: a body that names a character is refused.`,
    tag: 'items',
    query: PLAYER_PARAMS.none,
    body: { kind: 'json', schema: 'requests/bag-change', example: { definitionId: 'MATL-20260601090000-000101-F469B3E9', ...example } },
    success: createdOrReplayed('responses/bag-change', 'The bag entry.', 'The entry of an earlier request with the same idempotency key.'),
    errors: ['NOT_FOUND', ...errors, 'IDEMPOTENCY_KEY_REUSED'],
  };
}

const operations: OperationSpec[] = [
  // §4.4
  {
    entry: 'catalog',
    route: 'search',
    method: 'GET',
    operationId: 'search',
    summary: 'Search the catalog by name or id',
    description:
      'A record matches when its id equals the query, or when every word of the query matches a word of its name exactly, as a prefix, or ' +
      'with one typo (words of 3 or more letters); case, accents and punctuation are ignored. Best first: the exact name or id, then names ' +
      'starting with the query, then all words whole, then prefixes, then typos; ties by the shorter name, then name, then id (§2.5).',
    tag: 'catalog',
    query: SEARCH_PARAMS,
    queryExample: { q: 'blade', type: 'weapons', limit: '10' },
    success: [{ status: 200, description: 'The matching records, best first.', schema: 'responses/search', headers: LIMIT_HEADERS }],
    cacheable: true,
  },
  {
    entry: 'catalog',
    route: 'stats',
    method: 'GET',
    operationId: 'getStats',
    summary: 'Totals per data category',
    tag: 'catalog',
    query: {},
    success: [{ status: 200, description: 'The stats file of the build.', schema: 'responses/stats' }],
    cacheable: true,
  },
  {
    entry: 'catalog',
    route: 'export',
    method: 'GET',
    operationId: 'exportRecords',
    summary: 'Export the records of one type as JSON or CSV',
    description:
      'Without `tier` and `category` the body is the prebuilt file of the build, sent as it is (`/api/v1/exports/full/<type>.json` and ' +
      '`.csv`, also on the CDN); with them, the matching records, computed and streamed, so a large export is never cut by Vercel’s 4.5 MB ' +
      'cap on buffered answers. `category` compares without case. CSV follows RFC 4180 (CRLF, quoted fields, a header row) with a stable ' +
      'column set: `uuid, id, name, type, category, tier` first, then the rest alphabetically; nested objects become dotted columns ' +
      '(`stats.damageBase`), arrays of scalars are joined with `|`, other arrays are written as JSON text.',
    tag: 'catalog',
    query: EXPORT_PARAMS,
    queryExample: { type: 'weapons', tier: '2' },
    success: [
      {
        status: 200,
        description: 'The records.',
        schema: 'responses/export',
        alternative: { mediaType: 'text/csv', description: 'With `format=csv`: RFC 4180, a header row, sent as an attachment.' },
        headers: { 'Content-Disposition': 'With `format=csv`: `attachment; filename="<type>[-t<tier>][-<category>].csv"`.' },
      },
    ],
    cacheable: true,
  },
  // §4.2
  ...COLLECTION_NAMES.flatMap(collectionOperations),
  // §4.5, §4.6, §4.3
  registry('sprites', 'listSprites', 'List sprites', 'sprites-list', { queryExample: { limit: '20' } }),
  registry('sprites-search', 'searchSprites', 'Search sprites', 'sprites-search', { queryExample: { q: 'knight' } }),
  registry('sprite', 'getSprite', 'Get one sprite', 'sprite', { key: 'the sprite’s SPRT- id', keyExample: 'SPRT-610718D0-969AE4' }),
  registry('characters', 'listSpriteCharacters', 'List sprite characters', 'characters-list'),
  registry('character', 'getSpriteCharacter', 'Get one sprite character', 'character', {
    key: 'the character’s SPRT- id',
    keyExample: 'SPRT-8E477357-54D20A',
  }),
  registry('stats', 'getRegistryStats', 'Totals of the sprite, character and icon registries', 'registry-stats'),
  registry('icons', 'listIcons', 'List icons', 'icons-list', { queryExample: { category: 'weapon' } }),
  registry('icons-search', 'searchIcons', 'Search icons', 'icons-search', { queryExample: { q: 'sword' } }),
  registry('icons-by-path', 'getIconByPath', 'Get the icon of an object key, path or CDN URL', 'icon', {
    description: '`path` is the icon’s object key, its path below the key prefix, or its CDN URL; a path no icon has is 404.',
    queryExample: { path: 'factions/crusade_banner.png' },
    errors: ['NOT_FOUND'],
  }),
  registry('icons-categories', 'listIconCategories', 'Icon categories with their counts', 'icon-categories'),
  registry('icon', 'getIcon', 'Get one icon', 'icon', { key: 'the icon’s studio uuid', keyExample: 'ICON-006C-D95C-BC1C' }),
  registry('legacy-categories', 'listLegacyAssetCategories', 'Icon categories (legacy asset registry path)', 'icon-categories', {
    description: 'The legacy asset registry is the icon registry, keyed by ICON id.',
  }),
  registry('legacy-search', 'searchLegacyAssets', 'Search icons (legacy asset registry path)', 'icons-search', {
    queryExample: { q: 'sword' },
  }),
  registry('legacy-asset', 'getLegacyAsset', 'Get one icon by its ICON id (legacy asset registry path)', 'icon', {
    key: 'the icon’s ICON- id',
    keyExample: 'ICON-006C-D95C-BC1C',
  }),
  registry('studiodot-assets', 'listStudiodotAssets', 'Search the asset manifest', 'studiodot-assets-list', {
    queryExample: { type: 'icon' },
  }),
  registry(
    'studiodot-assets-categories',
    'listStudiodotAssetCategories',
    'Asset manifest categories with their counts',
    'studiodot-assets-categories',
  ),
  // §4.8
  {
    entry: 'wallet',
    route: 'verify-send',
    method: 'POST',
    operationId: 'verifySendToAccount',
    summary: 'Credit an account once per idempotency key',
    description: `Records the credit on the account's balance and transaction list in one atomic step. Exactly one of \`studioId\` and \`accountId\`; \`amount\` a JSON integer from 1 to \`WALLET_VERIFY_SEND_MAX\` (a deployment setting, 1,000 by default; strings, fractions, 0, negatives and anything larger are 400). The source ref is \`verify-send:{idempotencyKey}\`. ${IDEMPOTENCY} The same request is the same account (by either selector), amount and purpose; the note is not compared. Concurrent duplicates credit once. Coin enters only here and by an operator's grant: no route sends, spends or transfers it. A balance that would pass 2^53 - 1 is 409. A 503 changes nothing: retry with the same key.`,
    tag: 'wallet',
    body: {
      kind: 'json',
      schema: 'requests/verify-send-to-account',
      example: {
        studioId: 'STUDIO_7Q2M4K9XB3D8F1ZA',
        amount: 100,
        purpose: 'verify',
        idempotencyKey: 'order-2026-11-24-0001',
        note: 'launch bonus',
      },
    },
    success: [{ status: 200, description: 'The credit (or its replay).', schema: 'responses/wallet-credit', headers: REPLAYED }],
    errors: ['NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'wallet',
    route: 'overview',
    method: 'GET',
    operationId: 'getWalletOverview',
    summary: 'The caller’s balance and transactions, newest first',
    description: 'Paged with the opaque `cursor` of the previous page, which is bound to the account and the filters.',
    tag: 'wallet',
    query: OVERVIEW_PARAMS,
    queryExample: { limit: '20', kind: 'verify_send_to_account_wallet' },
    success: [
      {
        status: 200,
        description: 'The account, its balance and a page of transactions.',
        schema: 'responses/wallet-overview',
        headers: LIMIT_HEADERS,
      },
    ],
    errors: ['NOT_FOUND'],
  },
  // §2.6, §2.8, §4.8
  {
    entry: 'admin',
    route: 'accounts',
    method: 'POST',
    operationId: 'createAccount',
    summary: 'Create an account and its user',
    description:
      'The server mints the account id and the `STUDIO_*` id. With `idempotencyKey`, a replay of the same payload answers 200 with the first account and `created: false`.',
    tag: 'admin',
    body: {
      kind: 'json',
      schema: 'requests/create-account',
      example: { displayName: 'Ash Walker', username: 'ash.walker', idempotencyKey: 'create-ash-walker-0001' },
    },
    success: createdOrReplayed(
      'responses/account',
      'The new account.',
      'The account created by an earlier request with the same idempotency key.',
      { Location: 'The account’s URL.' },
      { Location: 'The account’s URL.' },
    ),
    errors: ['CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'admin',
    route: 'account',
    method: 'GET',
    operationId: 'getAccount',
    summary: 'Get an account by its studio id or account id',
    tag: 'admin',
    key: '`STUDIO_*` id or account uuid (either resolves the same account)',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    success: [{ status: 200, description: 'The account.', schema: 'responses/account' }],
  },
  // the operator console's sign-in (docs/architecture.md, "Operator console")
  {
    entry: 'admin',
    route: 'session',
    method: 'POST',
    operationId: 'createOperatorSession',
    summary: 'Exchange the admin password for a short-lived operator token',
    description:
      'Send `X-Admin-Password` alone (a request with a token is 403: a token cannot make another). The answer is a bearer token of role `admin` and subject `admin-password`, signed like every token the service issues, valid for 15 minutes (or `JWT_MAX_AGE_S` when shorter); nothing is stored, so signing out is forgetting it. Failed attempts count against the client’s budget of failed sign-ins (429 past it). 503 when the deployment signs no tokens (`JWT_JWKS_URL`).',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    success: [{ status: 200, description: 'The operator token.', schema: 'responses/admin-session' }],
  },
  // player look-up
  {
    entry: 'admin',
    route: 'players',
    method: 'GET',
    operationId: 'findPlayers',
    summary: 'Find accounts by id, username, external user id or display-name prefix',
    description:
      'Tries `q` as a studio id, an account id, a username and an external user id (`<provider>:<id>`, or the bare id under the configured provider), each exact, then as a display-name prefix (NFC, case-insensitive). The first page lists the exact matches first; the opaque `cursor` pages the name matches. Reads only.',
    tag: 'admin',
    query: PLAYER_SEARCH_PARAMS,
    queryExample: { q: 'ada', limit: '20' },
    success: [{ status: 200, description: 'The accounts found.', schema: 'responses/player-search', headers: LIMIT_HEADERS }],
  },
  {
    entry: 'admin',
    route: 'player',
    method: 'GET',
    operationId: 'getPlayerSummary',
    summary: 'Everything a support screen shows of one account',
    description:
      'The account, its external links, sessions and ban, balance with the latest wallet entries (each with who asked), the bag’s quantities with the first page of its history (`bagHistory`), the unique items owned with the first page of the account’s items in every state (`itemHistory`), characters with their progress revisions, island summary and learned recipes. Reads only: an island the player never opened is null, not created.',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    success: [{ status: 200, description: 'The account and what it holds.', schema: 'responses/player-summary' }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'player-wallet',
    method: 'GET',
    operationId: 'getPlayerWallet',
    summary: 'An account’s wallet entries, newest first, with who asked for each',
    description: 'The overview’s parameters and paging, for any account.',
    tag: 'admin',
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    query: OVERVIEW_PARAMS,
    queryExample: { limit: '20' },
    success: [{ status: 200, description: 'A page of entries.', schema: 'responses/player-wallet', headers: LIMIT_HEADERS }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'audit',
    method: 'GET',
    operationId: 'listAudit',
    summary: 'The audit log, newest first, with filters',
    description:
      'One record per state-changing request of an operator or a game server (who, which route, which account, the idempotency key, the answer’s status, whether it changed something, the request id, when), and per refused operator authentication. A change in the ledger or player state is written with its record in one atomic step. Filters combine: `actor` (a token’s subject, `admin-password` or `anonymous`), `account` (studio id or account id), `route` (`<entry>/<route name>`), `from` and `to` (ISO 8601 times; `to` exclusive). The opaque `cursor` pages with the same filters. Reads only.',
    tag: 'admin',
    query: AUDIT_PARAMS,
    queryExample: { route: 'admin/grant-coin', limit: '20' },
    success: [{ status: 200, description: 'A page of records.', schema: 'responses/audit', headers: LIMIT_HEADERS }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'player-bag',
    method: 'GET',
    operationId: 'getPlayerBag',
    summary: 'An account’s bag entries, newest first, reversals linked to their grants',
    description:
      'The quantities held now and every grant, consumption and reversal, newest first (time, then definition and sequence); a reversal names the grant it reverses (`reverses`) and a reversed grant its reversal (`reversedBy`), the reversal with its reason and who asked. Paged by an opaque `cursor` bound to the account and `definitionId`.',
    tag: 'admin',
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    query: BAG_HISTORY_PARAMS,
    queryExample: { limit: '20', definitionId: 'MATL-20260601090000-000101-F469B3E9' },
    success: [{ status: 200, description: 'A page of entries.', schema: 'responses/player-bag', headers: LIMIT_HEADERS }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'player-island',
    method: 'GET',
    operationId: 'getPlayerIsland',
    summary: 'An account’s home island as it stands',
    description:
      'The island’s whole state (zones, camp, nodes, the RTS heightmap once exported) with its revision, for an operator’s picture of it. Reads only: an island the player never opened is null, not created.',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    success: [{ status: 200, description: 'The account and its island.', schema: 'responses/player-island' }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'player-items',
    method: 'GET',
    operationId: 'getPlayerItems',
    summary: 'An account’s unique items in every state, newest mint first',
    description:
      'The items the account owns now and those that ended in its hands (consumed, destroyed, voided), each with its state; `state` keeps one. Paged by an opaque `cursor` bound to the account and the filter.',
    tag: 'admin',
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    query: ITEM_LIST_PARAMS,
    queryExample: { limit: '20', state: 'voided' },
    success: [{ status: 200, description: 'A page of items.', schema: 'responses/player-items', headers: LIMIT_HEADERS }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'player-characters',
    method: 'GET',
    operationId: 'getPlayerCharacters',
    summary: 'An account’s characters with their progress',
    description:
      'Every character of every era with its progress (attributes, profession levels, equipment, weapon mastery, skill loadouts) and its last save. Reads only.',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    success: [{ status: 200, description: 'The account and its characters.', schema: 'responses/player-characters' }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'item-history',
    method: 'GET',
    operationId: 'getItemEvents',
    summary: 'A unique item and its events, newest first',
    description:
      'The item as it stands with its owner, and its events newest first; a void carries its reason and who asked. Paged by an opaque `cursor` bound to the item.',
    tag: 'admin',
    key: 'the item’s studio_uuid',
    keyExample: UUID_EXAMPLE,
    query: ITEM_EVENT_PARAMS,
    queryExample: { limit: '20' },
    success: [{ status: 200, description: 'A page of events.', schema: 'responses/item-events', headers: LIMIT_HEADERS }],
    errors: ['BAD_REQUEST', 'NOT_FOUND'],
  },
  {
    entry: 'admin',
    route: 'grant-coin',
    method: 'POST',
    operationId: 'grantCoin',
    summary: 'Grant coin to an account, with a reason',
    description: `The same ledger as verify-send: kind \`admin_grant_coin\`, purpose \`grant\`, source ref \`admin-grant:{key}\`; the reason is kept as the entry's note, and operators see who asked. ${IDEMPOTENCY}`,
    tag: 'admin',
    body: {
      kind: 'json',
      schema: 'requests/grant-coin',
      example: {
        accountId: UUID_EXAMPLE,
        amount: 250,
        reason: 'Compensation for the 11-20 outage',
        idempotencyKey: 'grant-outage-1120-ash',
      },
    },
    success: [{ status: 200, description: 'The grant (or its replay).', schema: 'responses/wallet-credit', headers: REPLAYED }],
    errors: ['NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  // sessions and bans (§5.3)
  accessOperation(
    'revoke-sessions',
    'revokeSessions',
    'Refuse every token of an account issued until now',
    'Every token of the account issued at or before this second is refused (401) from the next request on, on every device; the player logs in again.',
    'requests/account-action',
    { reason: 'Player reports a stolen session', idempotencyKey: 'revoke-2026-11-28-0001' },
  ),
  accessOperation(
    'ban',
    'banAccount',
    'Ban an account, until a time or without end',
    'The account’s tokens are refused with 403 `ACCOUNT_SUSPENDED` (saying until when, never the reason) while the ban holds, and its sessions until now are revoked; no game server’s write lands on the account, while operators may still correct it. `until` is a time ahead; without it the ban has no end. A later ban replaces an earlier one; a ban whose end has passed no longer holds.',
    'requests/account-ban',
    { reason: 'Chargeback fraud, ticket 4411', until: '2027-01-01T00:00:00Z', idempotencyKey: 'ban-2026-11-28-0001' },
  ),
  accessOperation(
    'unban',
    'unbanAccount',
    'Lift an account’s ban',
    'The account’s tokens issued since the ban are let in again; those the ban revoked stay revoked.',
    'requests/account-action',
    { reason: 'Appeal granted, ticket 4412', idempotencyKey: 'unban-2026-11-29-0001' },
  ),
  {
    entry: 'admin',
    route: 'erase',
    method: 'POST',
    operationId: 'erasePlayer',
    summary: 'Erase an account’s personal data and close it (GDPR article 17)',
    description: `Removes the display name and username (it becomes \`erased:<studioId>\`), the account’s place in the name search, the notes of its wallet entries, the reasons of its bag reversals and item voids, and its external links; revokes its sessions and closes it with a ban without end that cannot be replaced or lifted. Balances, postings, transfers and item histories stay and still verify: no hash covers what is removed. ${IDEMPOTENCY}`,
    tag: 'admin',
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    body: {
      kind: 'json',
      schema: 'requests/account-action',
      example: { reason: 'Data request 2026-118', idempotencyKey: 'erase-2026-11-28-0001' },
    },
    success: [
      {
        status: 200,
        description: 'The erased account and its closed access (or the replay).',
        schema: 'responses/account-access',
        headers: REPLAYED,
      },
    ],
    errors: ['NOT_FOUND', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'admin',
    route: 'player-export',
    method: 'GET',
    operationId: 'exportPlayer',
    summary: 'Everything held about an account, as one JSON document (GDPR article 15)',
    description:
      'The account, links, access, every wallet entry, the bag, each item with its history, each character with its progress, the island’s state and the recipes; a download (`Content-Disposition`). Reads only.',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    key: '`STUDIO_*` id or account uuid',
    keyExample: 'STUDIO_7Q2M4K9XB3D8F1ZA',
    success: [
      {
        status: 200,
        description: 'The export.',
        schema: 'responses/player-export',
        headers: { 'Content-Disposition': 'attachment; filename="export-<studioId>.json"' },
      },
    ],
    errors: ['NOT_FOUND'],
  },
  // reversals (§4.8, §8)
  {
    entry: 'admin',
    route: 'reversals',
    method: 'POST',
    operationId: 'reverseEntry',
    summary: 'Reverse a wallet credit by a compensating transfer',
    description: `Appends a transfer of the credit’s amount from the account back to the issuer, linked to the original (the overview shows \`reverses\` on the reversal and \`reversedBy\` on the original); history is never edited. An entry is reversed at most once: another reversal of it is 409 naming the first. 409 too when the entry is itself a reversal, or the balance is below its amount. ${IDEMPOTENCY}`,
    tag: 'admin',
    body: {
      kind: 'json',
      schema: 'requests/reversal',
      example: { entryId: UUID_EXAMPLE, reason: 'Granted 5,000 instead of 500', idempotencyKey: 'reverse-2026-11-28-0001' },
    },
    success: [{ status: 200, description: 'The reversal (or its replay).', schema: 'responses/reversal', headers: REPLAYED }],
    errors: ['NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  // the scheduled ledger check (§4.8, §8; docs/architecture.md, "Scheduled verification")
  ...(['GET', 'POST'] as const).map((method): OperationSpec => ({
    entry: 'admin',
    route: 'ledger-verify',
    method,
    operationId: method === 'GET' ? 'runScheduledLedgerCheck' : 'runLedgerCheck',
    summary: method === 'GET' ? 'Run the scheduled ledger check (Vercel Cron)' : 'Run the ledger check now',
    description:
      'Verifies the ledger’s invariants piece by piece from where the last run stopped, for up to `budgetMs`: each account’s hash chain and running balance up to its head, each posting against its transfer, each reversal’s links, and at the end of a quiet pass the totals. The cursor and the result are kept in the store (see `getLedgerHealth`). A run that finds a broken invariant logs `ledger-alert` and posts to `ALERT_WEBHOOK_URL` when set; the answer is 200 either way.' +
      (method === 'GET'
        ? ' Vercel Cron calls it daily (`vercel.json` `crons`).'
        : ' `alert` says whether `ledger-alert` was logged and the webhook posted.'),
    tag: 'admin',
    query: LEDGER_VERIFY_PARAMS,
    queryExample: { budgetMs: '5000' },
    success: [{ status: 200, description: 'The run.', schema: 'responses/ledger-verification' }],
  })),
  {
    entry: 'admin',
    route: 'ledger-health',
    method: 'GET',
    operationId: 'getLedgerHealth',
    summary: 'The scheduled ledger check’s progress and last results',
    description:
      'How far the pass under way has come (or the last one, when it is over) and the last 100 results, newest first. Reads only.',
    tag: 'admin',
    query: PLAYER_PARAMS.none,
    success: [{ status: 200, description: 'Progress and results.', schema: 'responses/ledger-health' }],
  },
  // corrections of player state (§2.6, §2.8)
  {
    entry: 'admin',
    route: 'bag-reversals',
    method: 'POST',
    operationId: 'reverseBagGrant',
    summary: 'Reverse a bag grant by an entry that takes its units back',
    description: `Appends an entry under \`bag-reversal:{idempotencyKey}\` that takes back exactly the units the grant gave, linked to it (the bag history shows \`reverses\` on the reversal and \`reversedBy\` on the grant); history is never edited. The grant is named by its source ref (\`bag-grant:{key}\`) and the account it belongs to. A source ref the account does not have is 404. A grant is reversed at most once: another reversal of it is 409 naming the first. 409 too for a consumption or a reversal, or when fewer units are held than the grant gave. ${IDEMPOTENCY}`,
    tag: 'admin',
    body: {
      kind: 'json',
      schema: 'requests/bag-reversal',
      example: {
        studioId: 'STUDIO_7Q2M4K9XB3D8F1ZA',
        sourceRef: 'bag-grant:drop-2026-11-28-0042',
        reason: 'Granted 50 ore instead of 5',
        idempotencyKey: 'bag-reverse-2026-11-28-0001',
      },
    },
    success: [{ status: 200, description: 'The reversal (or its replay).', schema: 'responses/bag-reversal', headers: REPLAYED }],
    errors: ['NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'admin',
    route: 'item-void',
    method: 'POST',
    operationId: 'voidItem',
    summary: 'Void a unique item',
    description: `Records the item’s final \`voided\` event, with the reason and who asked: no event follows it (409), the item is no longer owned or wearable, and it stays in its history. From owned, assigned or equipped; 409 for a consumed, destroyed or voided item. Game servers may not void. ${IDEMPOTENCY}`,
    tag: 'admin',
    key: 'the item’s studio_uuid',
    keyExample: UUID_EXAMPLE,
    body: {
      kind: 'json',
      schema: 'requests/item-void',
      example: { reason: 'Duplicated by the 11-28 trade exploit', idempotencyKey: 'void-2026-11-28-0001' },
    },
    success: [{ status: 200, description: 'The voided item (or the replay).', schema: 'responses/item-voided', headers: REPLAYED }],
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  // §4.7, §4.9
  {
    entry: 'storage',
    route: 'upload',
    method: 'POST',
    operationId: 'uploadObject',
    summary: 'Store one file',
    description: `One file in the field \`file\`, an optional \`folder\`; more than one file is 413. ${STORED_TYPES} A refused type is 415. ${STORAGE_KEYS}`,
    tag: 'storage',
    body: { kind: 'multipart', schema: 'requests/storage-upload', files: { field: 'file', min: 1, max: 1, description: FILE_NAMED } },
    success: [
      {
        status: 201,
        description: 'The stored object.',
        schema: 'responses/storage-upload',
        headers: { Location: 'The object’s public URL.' },
      },
    ],
  },
  {
    entry: 'storage',
    route: 'upload-multi',
    method: 'POST',
    operationId: 'uploadObjects',
    summary: `Store up to ${MAX_MULTI_FILES} files`,
    description: `1 to ${MAX_MULTI_FILES} files in the field \`files\`, an optional \`folder\`; more is 413. Each file is stored or refused on its own (a refused type is a refused result, not a 415). ${STORED_TYPES} ${STORAGE_KEYS} ${STORED_ALL_OR_RETRIED}`,
    tag: 'storage',
    body: {
      kind: 'multipart',
      schema: 'requests/storage-upload',
      files: { field: 'files', min: 1, max: MAX_MULTI_FILES, description: FILE_NAMED },
    },
    success: [{ status: 200, description: 'One result per file, stored or refused.', schema: 'responses/storage-upload-multi' }],
  },
  {
    entry: 'storage',
    route: 'upload-zip',
    method: 'POST',
    operationId: 'uploadZip',
    summary: 'Store the entries of a zip archive under a folder',
    description: `One zip archive in the field \`file\` and a \`folder\` (required); each entry is stored at its path inside the archive below the folder, and refused or stored on its own by the rules of a file. The whole archive is refused (400, nothing stored) for an absolute or \`..\` name, a backslash, a symbolic link, an encrypted entry, more than 1,000 entries, more than 512 MiB uncompressed, an entry over \`STORAGE_MAX_FILE_BYTES\`, an entry that would grow more than 100 times (a zip bomb), or an entry that is itself an archive; the central directory is read before anything is decompressed. Directories, \`__MACOSX/\` and dot-files are skipped and counted. ${STORED_ALL_OR_RETRIED}`,
    tag: 'storage',
    body: {
      kind: 'multipart',
      schema: 'requests/storage-upload-zip',
      files: {
        field: 'file',
        min: 1,
        max: 1,
        description: 'A zip archive; each entry is stored under the folder at its own path inside the archive.',
      },
    },
    success: [{ status: 200, description: 'One result per entry, stored, refused or skipped.', schema: 'responses/storage-upload-zip' }],
  },
  {
    entry: 'storage',
    route: 'presign',
    method: 'POST',
    operationId: 'presignUpload',
    summary: 'A presigned PUT for one object (S3 storage only)',
    description:
      'For files larger than a function takes (Vercel refuses request bodies over 4.5 MB): the client sends the bytes straight to the bucket with a PUT to `url`, with exactly the signed type and length (`headers`), within 5 minutes, then registers the key (`registerAssets`), which judges the bytes again. 409 on the `local` storage driver.',
    tag: 'storage',
    body: {
      kind: 'json',
      schema: 'requests/storage-presign',
      example: { key: 'era1/models/oak-staff.glb', contentType: 'model/gltf-binary', size: 482113 },
    },
    success: [{ status: 200, description: 'The URL and the headers the PUT must send.', schema: 'responses/storage-presign' }],
    errors: ['CONFLICT'],
  },
  {
    entry: 'storage',
    route: 'list',
    method: 'GET',
    operationId: 'listObjects',
    summary: 'List stored objects in key order',
    description:
      'In the order of the keys’ UTF-8 bytes, after the opaque `cursor` of the previous page; `cursor` is null on the last page.',
    tag: 'storage',
    query: LIST_SPEC,
    queryExample: { prefix: 'era1/', limit: '50' },
    success: [{ status: 200, description: 'A page of objects.', schema: 'responses/storage-list', headers: LIMIT_HEADERS }],
  },
  {
    entry: 'storage',
    route: 'register',
    method: 'POST',
    operationId: 'registerAssets',
    summary: 'Register stored binaries in the metadata index',
    description:
      'At most 100 distinct keys (a batch over 100 is 400), in one atomic write, each with its purpose (`play`, `isolate` or `author`, §4.9). Each entry is `created` or `updated` with the type, size and ETag the storage reports, or `refused`: `INVALID_KEY`, `NOT_STORED`, or the type refusals of an upload (the bytes are judged again, since a presigned PUT’s type is only a claim, and such an object is removed).',
    tag: 'storage',
    body: {
      kind: 'json',
      schema: 'requests/storage-register',
      example: { entries: [{ key: 'era1/models/oak-staff.glb', purpose: 'play' }] },
    },
    success: [{ status: 200, description: 'One result per entry.', schema: 'responses/storage-register' }],
  },
  {
    entry: 'storage',
    route: 'index',
    method: 'GET',
    operationId: 'listAssetIndex',
    summary: 'The metadata index in key order',
    tag: 'storage',
    query: LIST_SPEC,
    success: [{ status: 200, description: 'A page of index entries.', schema: 'responses/storage-index', headers: LIMIT_HEADERS }],
  },
  {
    entry: 'storage',
    route: 'object',
    method: 'DELETE',
    operationId: 'deleteObject',
    summary: 'Delete a stored object and its index entry',
    description: 'Answers 204 whether or not the object existed. The key may contain `/`.',
    tag: 'storage',
    key: 'the object key (may contain `/`)',
    keyExample: 'era1/models/oak-staff.glb',
    success: [{ status: 204, description: 'Deleted, or there was nothing to delete.' }],
    // a path that is not a valid storage key is refused as the key parameter
    errors: ['INVALID_QUERY'],
  },
  // §2.9, §4.8
  {
    entry: 'player',
    route: 'spec',
    method: 'GET',
    operationId: 'getIslandSpec',
    summary: 'The home island contract',
    tag: 'player',
    query: {},
    success: [{ status: 200, description: 'Every value of §2.9.', schema: 'responses/island-spec' }],
    cacheable: true,
  },
  {
    entry: 'player',
    route: 'state',
    method: 'GET',
    operationId: 'getIslandState',
    summary: 'The caller’s home island',
    description: `The first read creates the island from the account’s seed. ${ACTING_FOR}`,
    tag: 'player',
    query: PLAYER_PARAMS.account,
    success: [
      {
        status: 200,
        description: 'The state and its revision.',
        schema: 'responses/island-state',
        headers: { ETag: '`"<revision>"`: send it as `If-Match` to change the island.' },
      },
    ],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'player',
    route: 'state',
    method: 'PATCH',
    operationId: 'patchIslandState',
    summary: 'Change the caller’s home island',
    description: `A JSON merge patch (RFC 7396) of the state fields: members set to \`null\` are removed (only \`campPosition\`, \`rtsHeightmap\` and \`rtsExport\` may be absent) and arrays are replaced whole. The merged state is checked whole against the island state schema, every bad field named at once; an island holds at most 1 MiB. \`If-Match\` names the revision the change was made from: none, or \`*\`, is 428; a stale one is 412 with the current \`ETag\`, so of two changes made from one revision exactly one wins. ETags are strong: \`W/"3"\` never matches. Positions are metres from the world's centre, x and z within ±512 (§2.9). ${WRITERS} ${ACTING_FOR}`,
    tag: 'player',
    query: PLAYER_PARAMS.account,
    body: {
      kind: 'json',
      schema: 'requests/island-state-patch',
      mediaTypes: MERGE_PATCH_TYPES,
      example: { campPosition: { x: 12.5, y: 0, z: -4 } },
      merged: 'requests/island-state',
    },
    success: [{ status: 200, description: 'The new state.', schema: 'responses/island-state', headers: { ETag: 'The new revision.' } }],
    errors: ['NOT_FOUND'],
    ifMatch: true,
  },
  {
    entry: 'player',
    route: 'export-from-rts',
    method: 'POST',
    operationId: 'exportIslandFromRts',
    summary: 'Derive and store the RTS export of the caller’s island',
    description:
      'Stores `rtsExport`, `rtsHeightmap` (128 × 128 heights in metres, row-major, within −30 to 80 m) and `rtsNatureScatter` of the RTS core (±100 m), derived from the seed and the grid cell, or from the sent `heightmap`, which must lie within its foundation’s own range. The same input always gives the same heights and scatter. Biomes resolve to foundations by class: coastal (beach, tropical, plains, storm) → `driftwood_bay`; highland (forest, volcanic), cold (winter, frozen) and dark (abyssal, nexus) → `ironfang_spire`; any other biome is 400 (§2.9).',
    tag: 'player',
    query: PLAYER_PARAMS.none,
    body: { kind: 'json', schema: 'requests/island-export-from-rts', example: { gridX: 64, gridZ: 64, seed: 1337, biome: 'forest' } },
    success: [{ status: 200, description: 'The new state.', schema: 'responses/island-state', headers: { ETag: 'The new revision.' } }],
    errors: ['NOT_FOUND'],
    ifMatch: true,
  },
  {
    entry: 'player',
    route: 'characters',
    method: 'GET',
    operationId: 'listCharacters',
    summary: 'The caller’s characters of one era, oldest first',
    tag: 'player',
    query: PLAYER_PARAMS.characters,
    queryExample: { era: 'warlords' },
    success: [{ status: 200, description: 'The characters.', schema: 'responses/game-characters-list' }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'player',
    route: 'characters',
    method: 'POST',
    operationId: 'createCharacter',
    summary: 'Create a character',
    description: `Class, race and faction are ids of the published catalog (\`classes.json\`, \`races.json\`, \`factions.json\`), the race within its faction; at most four per era, then 409. The character's id (a uuid) is its only key. ${IDEMPOTENCY}`,
    tag: 'player',
    query: PLAYER_PARAMS.none,
    body: {
      kind: 'json',
      schema: 'requests/character-create',
      example: {
        era: 'warlords',
        name: 'Ash Walker',
        classId: 'warrior',
        raceId: 'human',
        factionId: 'crusade',
        idempotencyKey: 'new-char-ash-0001',
      },
    },
    success: createdOrReplayed(
      'responses/game-character',
      'The new character.',
      'The character created by an earlier request with the same idempotency key.',
      { Location: 'The character’s progress URL.' },
    ),
    errors: ['NOT_FOUND', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'player',
    route: 'progress',
    method: 'GET',
    operationId: 'getCharacterProgress',
    summary: 'The character-scoped fields of one of the caller’s characters',
    description:
      'A game server reads any character’s progress; a player’s token, its own characters’ only: another account’s character is 404, like one that does not exist. An `STDG-*` display stamp sent as the key is 400 that says so.',
    tag: 'player',
    query: PLAYER_PARAMS.none,
    key: 'the character’s id (an RFC 4122 uuid)',
    keyExample: UUID_EXAMPLE,
    success: [
      {
        status: 200,
        description: 'The progress and its revision.',
        schema: 'responses/character-progress',
        headers: { ETag: '`"<progress_revision>"`.' },
      },
    ],
    errors: ['BAD_REQUEST'],
  },
  {
    entry: 'player',
    route: 'progress',
    method: 'PATCH',
    operationId: 'patchCharacterProgress',
    summary: 'Change the character-scoped fields of one of the caller’s characters',
    description: `A JSON merge patch of the character-scoped fields (\`attributes\`, \`profession_levels\`, \`equipment_on_body\`, \`weapon_mastery\`, \`skill_loadouts\`); account-scoped fields sent to a character (\`bag\`, \`resources\`, \`inventory\`, \`learned_recipes\`, \`wallet\`, \`soft_balance\`, \`home_island\`) are refused by name. The merged progress is checked whole; at most 64 KiB. ${WRITERS} Equipment names unique items the character's account owns, each assigned to the character or already equipped by it. ${IDEMPOTENCY}`,
    tag: 'player',
    query: PLAYER_PARAMS.none,
    key: 'the character’s id (an RFC 4122 uuid)',
    keyExample: UUID_EXAMPLE,
    body: {
      kind: 'json',
      schema: 'requests/character-progress-patch',
      example: { idempotencyKey: 'progress-ash-0001', progress: { skill_loadouts: [{ name: 'Frontline', skills: [] }] } },
      merged: 'requests/character-progress',
    },
    success: [
      {
        status: 200,
        description: 'The new progress.',
        schema: 'responses/character-progress',
        headers: { ETag: 'The new revision.', ...REPLAYED },
      },
    ],
    errors: ['BAD_REQUEST', 'IDEMPOTENCY_KEY_REUSED'],
    ifMatch: true,
  },
  // §5.5
  {
    entry: 'player',
    route: 'external',
    method: 'POST',
    operationId: 'externalLogin',
    summary: 'Log in with an external platform’s token',
    description:
      'The platform’s JWT is verified against its JWKS (`EXTERNAL_AUTH_*`; asymmetric algorithms only; `iss`, `aud`, `exp` and `sub` checked): 401 when it is not valid, 503 when the platform’s keys cannot be reached. Its `sub` is the external user id. The first login creates an account and user (username `<provider>:<id>`, display name the platform’s `preferred_username`); two simultaneous first logins get the same account. The answer is our token for the account (role `player`, one hour) with the account and its characters of every era. Only the external user id, its username and the link time are kept; the platform’s token never is, nor logged.',
    tag: 'identity',
    query: PLAYER_PARAMS.none,
    body: {
      kind: 'json',
      schema: 'requests/auth-external',
      example: { token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwbGF5ZXItMSJ9.c2lnbmF0dXJl' },
    },
    success: [{ status: 200, description: 'Our token, the account and its characters.', schema: 'responses/auth-login' }],
    // a first login creates the account: its username or key may already be an admin-created account's
    errors: ['UNAUTHORIZED', 'ACCOUNT_SUSPENDED', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'player',
    route: 'external-link',
    method: 'POST',
    operationId: 'linkExternalIdentity',
    summary: 'Bind an external identity to the caller’s account',
    tag: 'identity',
    query: PLAYER_PARAMS.none,
    body: {
      kind: 'json',
      schema: 'requests/auth-external',
      example: { token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwbGF5ZXItMSJ9.c2lnbmF0dXJl' },
    },
    success: [
      { status: 201, description: 'Bound.', schema: 'responses/auth-link' },
      { status: 200, description: 'Already bound to this account.', schema: 'responses/auth-link' },
    ],
    errors: ['NOT_FOUND', 'CONFLICT'],
  },
  {
    entry: 'player',
    route: 'logout',
    method: 'POST',
    operationId: 'logout',
    summary: 'Log out everywhere',
    description:
      'Every token of the caller’s account issued until now is refused from the next request on, on every device. Safe to repeat.',
    tag: 'identity',
    query: PLAYER_PARAMS.none,
    success: [{ status: 204, description: 'Logged out.' }],
    errors: ['NOT_FOUND'],
  },
  // §2.6, §4.8
  {
    entry: 'player',
    route: 'uuid',
    method: 'POST',
    operationId: 'mintItem',
    summary: 'Mint a unique item for an account',
    description: `A \`studio_uuid\` for an \`ITEM-*\` definition of the catalog's \`canonical-items-manifest.json\` that is not a consumable (stackables are bag quantities), owned by the account. Only the service mints instance ids; a definition id is never taken for one. ${IDEMPOTENCY} Parallel mints with one key make one item.`,
    tag: 'items',
    query: PLAYER_PARAMS.none,
    body: {
      kind: 'json',
      schema: 'requests/item-mint',
      example: {
        definitionId: 'ITEM-20260601093000-00010D-B1F512C1',
        studioId: 'STUDIO_7Q2M4K9XB3D8F1ZA',
        idempotencyKey: 'mint-drop-77-ash',
      },
    },
    success: createdOrReplayed(
      'responses/item-minted',
      'The minted item.',
      'The item minted by an earlier request with the same idempotency key.',
      { Location: 'The item’s ledger URL, `/api/ledger/{studio_uuid}`.' },
    ),
    errors: ['NOT_FOUND', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'player',
    route: 'item',
    method: 'GET',
    operationId: 'getItem',
    summary: 'A unique item, its owner and its events',
    tag: 'items',
    query: PLAYER_PARAMS.none,
    key: 'the item’s studio_uuid',
    keyExample: UUID_EXAMPLE,
    success: [{ status: 200, description: 'The item and every event, oldest first.', schema: 'responses/item-history' }],
    errors: ['BAD_REQUEST'],
  },
  {
    entry: 'player',
    route: 'item-events',
    method: 'POST',
    operationId: 'recordItemEvent',
    summary: 'Record an event of a unique item',
    description: `Appends one event: \`assigned\` or \`equipped\` (to a character of the owner, from owned or assigned), \`unequipped\` (from equipped), \`transferred\` (to another account, from owned or assigned), \`consumed\` or \`destroyed\` (final: nothing follows them). 409 when the item’s state forbids the event; \`voided\` is an operator’s (\`POST /api/admin/items/{studio_uuid}/void\`) and 400 here. Each event has its own idempotency key per item. ${IDEMPOTENCY}`,
    tag: 'items',
    query: PLAYER_PARAMS.none,
    key: 'the item’s studio_uuid',
    keyExample: UUID_EXAMPLE,
    body: {
      kind: 'json',
      schema: 'requests/item-event',
      example: { event: 'equipped', idempotencyKey: 'equip-77-ash-0001', characterId: UUID_EXAMPLE },
    },
    success: createdOrReplayed(
      'responses/item-event',
      'The recorded event.',
      'The event recorded by an earlier request with the same idempotency key.',
    ),
    errors: ['BAD_REQUEST', 'CONFLICT', 'IDEMPOTENCY_KEY_REUSED'],
  },
  {
    entry: 'player',
    route: 'account-export',
    method: 'GET',
    operationId: 'exportOwnData',
    summary: 'Everything held about the caller’s account, as one JSON document (GDPR article 15)',
    description:
      'The same document as the operators’ export, for the caller’s own account, without which operator asked for each entry, bag reversal or item void, and without a ban’s reason; a download (`Content-Disposition`).',
    tag: 'player',
    query: PLAYER_PARAMS.none,
    success: [
      {
        status: 200,
        description: 'The export.',
        schema: 'responses/player-export',
        headers: { 'Content-Disposition': 'attachment; filename="export-<studioId>.json"' },
      },
    ],
    errors: ['NOT_FOUND'],
  },
  // §2.6, §2.8, §4.8
  {
    entry: 'player',
    route: 'inventory',
    method: 'GET',
    operationId: 'getInventory',
    summary: 'The caller’s bag: stackables and unique items',
    tag: 'player',
    query: PLAYER_PARAMS.none,
    success: [{ status: 200, description: 'The bag.', schema: 'responses/inventory' }],
    errors: ['NOT_FOUND'],
  },
  bagChange(
    'inventory-grant',
    'grantInventory',
    'Add a quantity of a stackable to an account’s bag',
    `409 when the quantity held would pass 2^53 - 1. ${IDEMPOTENCY}`,
    { studioId: 'STUDIO_7Q2M4K9XB3D8F1ZA', quantity: 5, idempotencyKey: 'loot-77-ash-iron' },
    ['CONFLICT'],
  ),
  bagChange(
    'inventory-consume',
    'consumeInventory',
    'Take a quantity of a stackable from an account’s bag',
    `409 beyond the quantity held. ${IDEMPOTENCY}`,
    { accountId: UUID_EXAMPLE, quantity: 2, idempotencyKey: 'craft-77-ash-iron' },
    ['CONFLICT'],
  ),
  {
    entry: 'player',
    route: 'recipes',
    method: 'GET',
    operationId: 'listRecipes',
    summary: 'The recipes the caller’s account has learned',
    description: ACTING_FOR,
    tag: 'player',
    query: PLAYER_PARAMS.account,
    success: [{ status: 200, description: 'By time learned, then id.', schema: 'responses/account-recipes' }],
    errors: ['NOT_FOUND'],
  },
  {
    entry: 'player',
    route: 'recipes',
    method: 'POST',
    operationId: 'learnRecipe',
    summary: 'Teach an account a recipe of the published catalog',
    description:
      'A game server teaches the account it names (`studioId` or `accountId`) a `RECP-*` recipe of `master-recipes.json` when the player earns it in play. ' +
      'Learning it again answers 200 with the first time and changes nothing.',
    tag: 'player',
    query: PLAYER_PARAMS.none,
    body: {
      kind: 'json',
      schema: 'requests/recipe-learn',
      example: { studioId: 'STUDIO_7Q2M4K9XB3D8F1ZA', recipeId: 'RECP-20260601100000-000123-64A3D698' },
    },
    success: [
      { status: 201, description: 'Learned now.', schema: 'responses/recipe-learned' },
      { status: 200, description: 'Learned before.', schema: 'responses/recipe-learned' },
    ],
    errors: ['NOT_FOUND'],
  },
];

/** Every operation, in route table order. */
export const OPERATIONS: readonly OperationSpec[] = Object.freeze(operations);

/** Static files of the output described beside the operations (§4.1, §9). */
export const STATIC_FILES: readonly StaticFileSpec[] = Object.freeze([
  {
    path: '/api/v1/game-data-manifest.json',
    operationId: 'getManifest',
    summary: 'The game-data manifest: every published file with its size and SHA-256, the build id, statuses and load order',
    schema: 'output/game-data-manifest',
  },
  {
    path: '/api/v1/changes.json',
    operationId: 'getChanges',
    summary: 'The change feed: what this build added, removed and changed since the previous one',
    description: 'Sync protocol: `api/_lib/formats/changes.ts`.',
    schema: 'output/changes',
  },
  { path: '/api/v1/versions.json', operationId: 'getVersions', summary: 'The kept builds, newest first', schema: 'output/versions' },
  {
    path: '/api/v1/build-report.json',
    operationId: 'getBuildReport',
    summary: 'Every problem of the build, by file, line, pointer, rule and severity',
    schema: 'output/build-report',
  },
  {
    path: '/api/v1/{file}',
    operationId: 'getCatalogFile',
    summary: 'Any published catalog file',
    description: 'Every file the manifest lists, e.g. `master-items.json`, `icon-shards/weapon.json` (the path may contain `/`).',
    file: 'the file’s path below `/api/v1/`, as the manifest lists it without the `api/v1/` prefix',
  },
]);
