/**
 * Player state on SQLite (`STORE_DRIVER=sqlite`, the embedded default): tables in the data folder's
 * database file (`DATA_DIR/ledger.sqlite`) beside the ledger's, written through the store kit's one
 * group-commit writer (`api/_lib/stores/sqlite.ts`; docs/architecture.md, "Player state"). Every write is
 * one piece of a `BEGIN IMMEDIATE` transaction that reads what it checks, then writes.
 *
 * Tables: `islands` (account → state JSON, revision, last write id), `characters` (one row each, progress
 * JSON and revision), `learned_recipes` ((account, recipe) → time), `external_links` ((provider, external
 * user id) → account, username, link time), `items` (each unique item as it stands), `item_events`
 * (append-only by trigger), `bag_quantities` and `bag_entries` (append-only by trigger; the source ref
 * unique forever); layout `player-history`: `bag_reversals` (grant's source ref → its reversal's, append-only
 * by trigger: one reversal per grant), `player_notes` (an operator entry's ref, a bag reversal's source ref
 * or `item:<studio_uuid>:<seq>` of a void → its account, note and actor; an erasure blanks the note) and
 * the index of an account's bag entries by time. Idempotency records are the kit's `idempotency_keys`,
 * by scope: `character:<account>` (ref: the character id), `progress:<character>` (ref: `<revision>
 * <digest>` of the save), `mint` (ref: the item id), `item:<studio_uuid>` (ref: `<event seq> <state
 * after>`), `bag` (grants, consumptions and reversals by source ref; ref: the entry's `<account>
 * <definition> <seq>`).
 *
 * Bans (spec 5.3): a write asked to refuse a banned account reads the ledger's `account_access` (layout
 * `ledger-access`, applied here too, so the table exists whichever store opens the file first) in its own
 * transaction: the group commit orders it with the ban's write, so a ban that committed first is seen.
 */
import type { InStatement, InValue, Row, Transaction } from '@libsql/client';
import type { IslandState } from '../island/generate.js';
import { ACCESS_LAYOUT } from '../ledger/access.js';
import type { AccountBan } from '../ledger/types.js';
import { lookupKey, recordKey, requestFingerprint } from '../stores/idempotency.js';
import { openSqliteDatabase } from '../stores/sqlite.js';
import {
  BAG_REF_PREFIX,
  PLAYER_STORE,
  banHolding,
  characterBody,
  itemAfter,
  WEARABLE,
  type BagEntry,
  type BagRecord,
  type BagReversalOutcome,
  type ItemEventRecord,
  type Character,
  type Era,
  type ExternalLink,
  type IslandDoc,
  type ItemEvent,
  type ItemInstance,
  type EquipmentRefusal,
  type ItemEventKind,
  type ItemEventOutcome,
  type ItemState,
  type MintOutcome,
  type ProgressSaveOutcome,
  type PlayerStore,
  type Progress,
} from './types.js';

const DDL = `
CREATE TABLE IF NOT EXISTS islands (
  account_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  revision INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  last_write TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS characters (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  era TEXT NOT NULL,
  body TEXT NOT NULL,
  progress TEXT NOT NULL,
  revision INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  ordinal INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS characters_by_era ON characters (account_id, era, ordinal);
CREATE TABLE IF NOT EXISTS external_links (
  provider TEXT NOT NULL,
  external_user_id TEXT NOT NULL,
  username TEXT NOT NULL,
  account_id TEXT NOT NULL,
  linked_at TEXT NOT NULL,
  PRIMARY KEY (provider, external_user_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
  studio_uuid TEXT PRIMARY KEY,
  definition_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  state TEXT NOT NULL,
  character_id TEXT,
  seq INTEGER NOT NULL,
  minted_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_by_owner ON items (account_id, minted_at);
CREATE TABLE IF NOT EXISTS item_events (
  studio_uuid TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  account_id TEXT NOT NULL,
  character_id TEXT,
  at TEXT NOT NULL,
  PRIMARY KEY (studio_uuid, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS item_events_append_only_u BEFORE UPDATE ON item_events BEGIN SELECT RAISE(ABORT, 'item events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS item_events_append_only_d BEFORE DELETE ON item_events BEGIN SELECT RAISE(ABORT, 'item events are append-only'); END;
CREATE TABLE IF NOT EXISTS bag_quantities (
  account_id TEXT NOT NULL,
  definition_id TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity >= 0),
  seq INTEGER NOT NULL,
  PRIMARY KEY (account_id, definition_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bag_entries (
  account_id TEXT NOT NULL,
  definition_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  delta INTEGER NOT NULL,
  quantity_after INTEGER NOT NULL,
  source_ref TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  PRIMARY KEY (account_id, definition_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS bag_entries_append_only_u BEFORE UPDATE ON bag_entries BEGIN SELECT RAISE(ABORT, 'bag entries are append-only'); END;
CREATE TRIGGER IF NOT EXISTS bag_entries_append_only_d BEFORE DELETE ON bag_entries BEGIN SELECT RAISE(ABORT, 'bag entries are append-only'); END;
CREATE TABLE IF NOT EXISTS learned_recipes (
  account_id TEXT NOT NULL,
  recipe_id TEXT NOT NULL,
  learned_at TEXT NOT NULL,
  PRIMARY KEY (account_id, recipe_id)
) WITHOUT ROWID;
`;

const text = (v: unknown): string => v as string;

/** A character from its row: the fixed fields in `body`, progress and revision in their own columns. */
function characterOf(r: Row): Character {
  return {
    ...(JSON.parse(text(r.body)) as Omit<Character, 'progress' | 'progressRevision' | 'updatedAt'>),
    progress: JSON.parse(text(r.progress)) as Progress,
    progressRevision: Number(r.revision),
    updatedAt: text(r.updated_at),
  };
}

function linkOf(r: Row): ExternalLink {
  return {
    provider: text(r.provider),
    externalUserId: text(r.external_user_id),
    username: text(r.username),
    accountId: text(r.account_id),
    linkedAt: text(r.linked_at),
  };
}

function itemOf(r: Row): ItemInstance {
  return {
    studioUuid: text(r.studio_uuid),
    definitionId: text(r.definition_id),
    accountId: text(r.account_id),
    state: text(r.state) as ItemState,
    characterId: r.character_id === null ? null : text(r.character_id),
    seq: Number(r.seq),
    mintedAt: text(r.minted_at),
    updatedAt: text(r.updated_at),
  };
}

function itemEventOf(r: Row): ItemEvent {
  return {
    studioUuid: text(r.studio_uuid),
    seq: Number(r.seq),
    kind: text(r.kind) as ItemEvent['kind'],
    accountId: text(r.account_id),
    characterId: r.character_id === null ? null : text(r.character_id),
    at: text(r.at),
  };
}

function bagEntryOf(r: Row): BagEntry {
  return {
    accountId: text(r.account_id),
    definitionId: text(r.definition_id),
    seq: Number(r.seq),
    delta: Number(r.delta),
    quantityAfter: Number(r.quantity_after),
    sourceRef: text(r.source_ref),
    at: text(r.at),
  };
}

/** A bag entry's columns with its reversal links and note (`e` bag_entries; see {@link BAG_JOINS}). */
const BAG_COLUMNS = 'e.*, rv.original_ref AS reverses, rb.reversal_ref AS reversed_by, n.note AS note, n.actor AS actor';
const BAG_JOINS = `LEFT JOIN bag_reversals rv ON rv.reversal_ref = e.source_ref
  LEFT JOIN bag_reversals rb ON rb.original_ref = e.source_ref LEFT JOIN player_notes n ON n.ref = e.source_ref`;

/** A bag entry with its links and note from a row of {@link BAG_COLUMNS}. */
function bagRecordOf(r: Row): BagRecord {
  return {
    ...bagEntryOf(r),
    ...(r.reverses === null ? {} : { reverses: text(r.reverses) }),
    ...(r.reversed_by === null ? {} : { reversedBy: text(r.reversed_by) }),
    ...(r.note === null ? {} : { note: text(r.note), actor: text(r.actor) }),
  };
}

/** The note ref of an item's event (module header). */
const itemNoteRef = (studioUuid: string, seq: number) => `item:${studioUuid}:${seq}`;

/** An event with its note from a row of `item_events e LEFT JOIN player_notes n`. */
function itemEventRecordOf(r: Row): ItemEventRecord {
  return { ...itemEventOf(r), ...(r.note === null || r.note === undefined ? {} : { note: text(r.note), actor: text(r.actor) }) };
}

/**
 * The ban holding at `at` over any of `accountIds`, read in the write's own transaction from the ledger's
 * `account_access` (module header), or undefined.
 */
async function banIn(tx: Transaction, accountIds: readonly string[], at: string): Promise<AccountBan | undefined> {
  for (const id of accountIds) {
    const r = (
      await tx.execute({ sql: 'SELECT ban_reason, ban_at, ban_until FROM account_access WHERE account_id = ?', args: [id.toLowerCase()] })
    ).rows[0];
    if (!r || r.ban_reason === null) continue;
    const held = banHolding(
      { reason: text(r.ban_reason), at: text(r.ban_at), ...(r.ban_until === null ? {} : { until: text(r.ban_until) }) },
      at,
    );
    if (held) return held;
  }
  return undefined;
}

function islandOf(r: Row): IslandDoc {
  return { state: JSON.parse(text(r.state)) as IslandState, revision: Number(r.revision), updatedAt: text(r.updated_at) };
}

/** Player state's tables (`api/_lib/stores/sqlite.ts`, "Layouts"). */
export const PLAYER_LAYOUT = Object.freeze({ component: 'player', version: 1, ddl: DDL });

/**
 * What operators' corrections and reads of player state keep (docs/architecture.md, "Bag reversals",
 * "Voided items"): the reversal links of bag grants (append-only, one per grant), the notes of operators'
 * entries, and the index that lists an account's bag entries newest first.
 */
export const HISTORY_LAYOUT = Object.freeze({
  component: 'player-history',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS bag_reversals (
  original_ref TEXT PRIMARY KEY,
  reversal_ref TEXT NOT NULL UNIQUE
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS bag_reversals_append_only_u BEFORE UPDATE ON bag_reversals BEGIN SELECT RAISE(ABORT, 'bag reversals are append-only'); END;
CREATE TRIGGER IF NOT EXISTS bag_reversals_append_only_d BEFORE DELETE ON bag_reversals BEGIN SELECT RAISE(ABORT, 'bag reversals are append-only'); END;
CREATE TABLE IF NOT EXISTS player_notes (
  ref TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  note TEXT NOT NULL,
  actor TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS player_notes_by_account ON player_notes (account_id);
CREATE INDEX IF NOT EXISTS bag_entries_by_time ON bag_entries (account_id, at, definition_id, seq);
`,
});

/** Idempotency scopes of player state (module header). */
const SCOPES = Object.freeze({
  character: (accountId: string) => `character:${accountId}`,
  progress: (characterId: string) => `progress:${characterId}`,
  mint: 'mint',
  item: (studioUuid: string) => `item:${studioUuid}`,
  bag: 'bag',
});

/**
 * Open (creating the tables when missing) the player store in the database file `file`.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or holds another layout.
 */
export async function openSqlitePlayerStore(file: string): Promise<PlayerStore> {
  const db = await openSqliteDatabase({ file, layout: [ACCESS_LAYOUT, PLAYER_LAYOUT, HISTORY_LAYOUT], store: PLAYER_STORE });
  const one = async (tx: Transaction, sql: string, args: InValue[]) => (await tx.execute({ sql, args })).rows[0];
  const itemRow = (tx: Transaction, studioUuid: string) => one(tx, 'SELECT * FROM items WHERE studio_uuid = ?', [studioUuid]);
  const eventRow = (tx: Transaction, studioUuid: string, seq: number) =>
    one(tx, 'SELECT * FROM item_events WHERE studio_uuid = ? AND seq = ?', [studioUuid, seq]);
  /** The outcome an item event's key already decided: its replay, a reuse, or undefined for a new key. */
  const storedItemEvent = async (
    tx: Transaction,
    current: ItemInstance,
    key: string,
    fingerprint: string,
  ): Promise<ItemEventOutcome | undefined> => {
    const k = await lookupKey(tx, SCOPES.item(current.studioUuid), key, fingerprint);
    if (k.status === 'new') return undefined;
    if (k.status === 'key-reused') return { status: 'key-reused' };
    const [seq, state] = k.ref.split(' ') as [string, ItemState];
    const event = itemEventOf((await eventRow(tx, current.studioUuid, Number(seq)))!);
    return { status: 'replayed', item: itemAfter(current, event, state), event };
  };

  return {
    driver: 'sqlite',
    async findIsland(accountId) {
      const found = (await db.read('SELECT * FROM islands WHERE account_id = ?', [accountId]))[0];
      return found ? islandOf(found) : undefined;
    },
    async island(accountId, initial) {
      const found = (await db.read('SELECT * FROM islands WHERE account_id = ?', [accountId]))[0];
      if (found) return islandOf(found);
      return db.write(async (tx) => {
        const again = await one(tx, 'SELECT * FROM islands WHERE account_id = ?', [accountId]);
        if (again) return islandOf(again);
        const doc = initial();
        await tx.execute({
          sql: 'INSERT INTO islands (account_id, state, revision, updated_at, last_write) VALUES (?, ?, ?, ?, ?)',
          args: [accountId, JSON.stringify(doc.state), doc.revision, doc.updatedAt, ''],
        });
        return doc;
      });
    },
    saveIsland(accountId, save) {
      return db.write(async (tx) => {
        const row = await one(tx, 'SELECT * FROM islands WHERE account_id = ?', [accountId]);
        if (!row) return { status: 'missing' } as const;
        if (text(row.last_write) === save.writeId) return { status: 'saved', doc: islandOf(row) } as const;
        const ban = save.refuseBanned ? await banIn(tx, [accountId], save.at) : undefined;
        if (ban) return { status: 'suspended', ban } as const;
        if (Number(row.revision) !== save.expectedRevision) return { status: 'stale', revision: Number(row.revision) } as const;
        const doc: IslandDoc = { state: save.state, revision: save.expectedRevision + 1, updatedAt: save.at };
        await tx.execute({
          sql: 'UPDATE islands SET state = ?, revision = ?, updated_at = ?, last_write = ? WHERE account_id = ?',
          args: [JSON.stringify(doc.state), doc.revision, doc.updatedAt, save.writeId, accountId],
        });
        return { status: 'saved', doc } as const;
      });
    },
    createCharacter(input) {
      const c = input.character;
      return db.write(async (tx) => {
        if (input.clientKey !== undefined) {
          const k = await lookupKey(tx, SCOPES.character(c.accountId), input.clientKey, input.fingerprint);
          if (k.status === 'key-reused') return { status: 'key-reused' } as const;
          if (k.status === 'same') {
            const row = await one(tx, 'SELECT * FROM characters WHERE id = ?', [k.ref]);
            return { status: k.ref === c.id ? 'created' : 'replayed', character: characterOf(row!) } as const;
          }
        }
        const same = await one(tx, 'SELECT * FROM characters WHERE id = ?', [c.id]);
        if (same) return { status: 'created', character: characterOf(same) } as const;
        const counts = (await one(tx, 'SELECT count(*) AS total, coalesce(sum(era = ?), 0) AS used FROM characters WHERE account_id = ?', [
          c.era,
          c.accountId,
        ]))!;
        if (Number(counts.used) >= input.slotsPerEra) return { status: 'full', slotsPerEra: input.slotsPerEra } as const;
        await tx.batch([
          {
            sql: 'INSERT INTO characters (id, account_id, era, body, progress, revision, updated_at, ordinal) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            args: [
              c.id,
              c.accountId,
              c.era,
              characterBody(c),
              JSON.stringify(c.progress),
              c.progressRevision,
              c.updatedAt,
              Number(counts.total) + 1,
            ],
          },
          ...(input.clientKey === undefined ? [] : [recordKey(SCOPES.character(c.accountId), input.clientKey, input.fingerprint, c.id)]),
        ]);
        return { status: 'created', character: c } as const;
      });
    },
    async characters(accountId: string, era: Era) {
      return (await db.read('SELECT * FROM characters WHERE account_id = ? AND era = ? ORDER BY ordinal', [accountId, era])).map(
        characterOf,
      );
    },
    async character(accountId, characterId) {
      const row = (await db.read('SELECT * FROM characters WHERE id = ? AND account_id = ?', [characterId, accountId]))[0];
      return row ? characterOf(row) : undefined;
    },
    saveProgress(accountId, characterId, save) {
      return db.write(async (tx) => {
        const row = await one(tx, 'SELECT * FROM characters WHERE id = ? AND account_id = ?', [characterId, accountId]);
        if (!row) return { status: 'missing' } as const;
        const k = await lookupKey(tx, SCOPES.progress(characterId), save.idempotencyKey, save.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' } as const;
        if (k.status === 'same') return { status: 'replayed', character: characterOf(row), revision: Number(k.ref.split(' ')[0]) } as const;
        const ban = save.refuseBanned ? await banIn(tx, [accountId], save.at) : undefined;
        if (ban) return { status: 'suspended', ban } as const;
        if (Number(row.revision) !== save.expectedRevision) return { status: 'stale', revision: Number(row.revision) } as const;
        const refused: EquipmentRefusal[] = [];
        for (const id of save.equipment) {
          const item = await itemRow(tx, id);
          const reason = !item
            ? 'missing'
            : item.account_id !== accountId
              ? 'not-owned'
              : !WEARABLE.includes(item.state as ItemState) || (item.character_id !== null && item.character_id !== characterId)
                ? 'state'
                : undefined;
          if (reason) refused.push({ studioUuid: id, reason });
        }
        if (refused.length > 0) return { status: 'equipment-refused', refused } as const;
        // the item ledger follows what the character wears, in this very write (docs/architecture.md, "Player state")
        const bindings: InStatement[] = [];
        const move = (item: Row, state: ItemState, character: string | null, kind: ItemEventKind) => {
          const seq = Number(item.seq) + 1;
          bindings.push(
            {
              sql: 'UPDATE items SET state = ?, character_id = ?, seq = ?, updated_at = ? WHERE studio_uuid = ?',
              args: [state, character, seq, save.at, item.studio_uuid as string],
            },
            {
              sql: 'INSERT INTO item_events (studio_uuid, seq, kind, account_id, character_id, at) VALUES (?, ?, ?, ?, ?, ?)',
              args: [item.studio_uuid as string, seq, kind, item.account_id as string, character, save.at],
            },
          );
        };
        for (const id of save.equipment) {
          const item = (await itemRow(tx, id))!;
          if (item.state !== 'equipped' || item.character_id !== characterId) move(item, 'equipped', characterId, 'equipped');
        }
        for (const id of save.unequip ?? []) {
          const item = await itemRow(tx, id);
          if (item && item.account_id === accountId && item.state === 'equipped' && item.character_id === characterId)
            move(item, 'owned', null, 'unequipped');
        }
        const character: Character = {
          ...characterOf(row),
          progress: save.progress,
          progressRevision: save.expectedRevision + 1,
          updatedAt: save.at,
        };
        await tx.batch([
          {
            sql: 'UPDATE characters SET progress = ?, revision = ?, updated_at = ? WHERE id = ?',
            args: [JSON.stringify(save.progress), character.progressRevision, save.at, characterId],
          },
          recordKey(
            SCOPES.progress(characterId),
            save.idempotencyKey,
            save.fingerprint,
            `${character.progressRevision} ${requestFingerprint(save.progress)}`,
          ),
          ...bindings,
        ]);
        return { status: 'created', character } as const;
      });
    },
    progressRecord(accountId, characterId, idempotencyKey, fingerprint) {
      return db.write(async (tx): Promise<ProgressSaveOutcome | undefined> => {
        const row = await one(tx, 'SELECT * FROM characters WHERE id = ? AND account_id = ?', [characterId, accountId]);
        if (!row) return undefined;
        const k = await lookupKey(tx, SCOPES.progress(characterId), idempotencyKey, fingerprint);
        if (k.status === 'new') return undefined;
        if (k.status === 'key-reused') return { status: 'key-reused' };
        return { status: 'replayed', character: characterOf(row), revision: Number(k.ref.split(' ')[0]) };
      });
    },
    learnRecipe(accountId, recipeId, at, options = {}) {
      return db.write(async (tx) => {
        const row = await one(tx, 'SELECT learned_at FROM learned_recipes WHERE account_id = ? AND recipe_id = ?', [accountId, recipeId]);
        if (row) return { learned: false, recipe: { recipeId, learnedAt: text(row.learned_at) } };
        const ban = options.refuseBanned ? await banIn(tx, [accountId], at) : undefined;
        if (ban) return { status: 'suspended', ban } as const;
        await tx.execute({
          sql: 'INSERT INTO learned_recipes (account_id, recipe_id, learned_at) VALUES (?, ?, ?)',
          args: [accountId, recipeId, at],
        });
        return { learned: true, recipe: { recipeId, learnedAt: at } };
      });
    },
    async recipes(accountId) {
      const rows = await db.read('SELECT recipe_id, learned_at FROM learned_recipes WHERE account_id = ? ORDER BY learned_at, recipe_id', [
        accountId,
      ]);
      return rows.map((r) => ({ recipeId: text(r.recipe_id), learnedAt: text(r.learned_at) }));
    },
    linkExternal(link) {
      return db.write(async (tx) => {
        const row = await one(tx, 'SELECT * FROM external_links WHERE provider = ? AND external_user_id = ?', [
          link.provider,
          link.externalUserId,
        ]);
        if (row) {
          const stored = linkOf(row);
          return { status: stored.accountId === link.accountId ? 'existing' : 'taken', link: stored } as const;
        }
        await tx.execute({
          sql: 'INSERT INTO external_links (provider, external_user_id, username, account_id, linked_at) VALUES (?, ?, ?, ?, ?)',
          args: [link.provider, link.externalUserId, link.username, link.accountId, link.linkedAt],
        });
        return { status: 'linked', link } as const;
      });
    },
    async removeExternalLinks(accountId) {
      await db.write((tx) => tx.execute({ sql: 'DELETE FROM external_links WHERE account_id = ?', args: [accountId] }));
    },
    async externalLinksOf(accountId) {
      const rows = await db.read('SELECT * FROM external_links WHERE account_id = ? ORDER BY provider, external_user_id', [accountId]);
      return rows.map(linkOf);
    },
    async externalLink(provider, externalUserId) {
      const row = (
        await db.read('SELECT * FROM external_links WHERE provider = ? AND external_user_id = ?', [provider, externalUserId])
      )[0];
      return row ? linkOf(row) : undefined;
    },
    mintItem(request) {
      return db.write(async (tx): Promise<MintOutcome> => {
        const k = await lookupKey(tx, SCOPES.mint, request.idempotencyKey, request.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' } as const;
        if (k.status === 'same') {
          const event = itemEventOf((await eventRow(tx, k.ref, 1))!);
          const item = itemAfter(itemOf((await itemRow(tx, k.ref))!), event, 'owned');
          return {
            status: k.ref === request.item.studioUuid ? 'created' : 'replayed',
            item: { ...item, updatedAt: item.mintedAt },
            event,
          } as const;
        }
        const i = request.item;
        const ban = request.refuseBanned ? await banIn(tx, [i.accountId], i.mintedAt) : undefined;
        if (ban) return { status: 'suspended', ban };
        const event: ItemEvent = {
          studioUuid: i.studioUuid,
          seq: 1,
          kind: 'minted',
          accountId: i.accountId,
          characterId: null,
          at: i.mintedAt,
        };
        await tx.batch([
          {
            sql: 'INSERT INTO items (studio_uuid, definition_id, account_id, state, character_id, seq, minted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            args: [i.studioUuid, i.definitionId, i.accountId, i.state, i.characterId, i.seq, i.mintedAt, i.updatedAt],
          },
          {
            sql: 'INSERT INTO item_events (studio_uuid, seq, kind, account_id, character_id, at) VALUES (?, ?, ?, ?, ?, ?)',
            args: [event.studioUuid, 1, 'minted', event.accountId, null, event.at],
          },
          recordKey(SCOPES.mint, request.idempotencyKey, request.fingerprint, i.studioUuid),
        ]);
        return { status: 'created', item: i, event } as const;
      });
    },
    recordItemEvent(request) {
      return db.write(async (tx): Promise<ItemEventOutcome> => {
        const row = await itemRow(tx, request.studioUuid);
        if (!row) return { status: 'missing' };
        const current = itemOf(row);
        const known = await storedItemEvent(tx, current, request.idempotencyKey, request.fingerprint);
        if (known) return known;
        // the owner and the character the caller validated against, checked in the write itself
        if (current.accountId !== request.expectedOwner) return { status: 'moved' };
        if (
          request.characterId !== null &&
          !(await one(tx, 'SELECT 1 FROM characters WHERE id = ? AND account_id = ?', [request.characterId, request.expectedOwner]))
        )
          return { status: 'moved' };
        const ban = request.refuseBanned
          ? await banIn(tx, request.accountId === undefined ? [current.accountId] : [current.accountId, request.accountId], request.at)
          : undefined;
        if (ban) return { status: 'suspended', ban };
        if (!request.from.includes(current.state)) return { status: 'forbidden', item: current };
        const item: ItemInstance = {
          ...current,
          accountId: request.accountId ?? current.accountId,
          state: request.to,
          characterId: request.characterId,
          seq: current.seq + 1,
          updatedAt: request.at,
        };
        const event: ItemEvent = {
          studioUuid: item.studioUuid,
          seq: item.seq,
          kind: request.kind,
          accountId: item.accountId,
          characterId: item.characterId,
          at: request.at,
        };
        await tx.batch([
          {
            sql: 'UPDATE items SET account_id = ?, state = ?, character_id = ?, seq = ?, updated_at = ? WHERE studio_uuid = ?',
            args: [item.accountId, item.state, item.characterId, item.seq, item.updatedAt, item.studioUuid],
          },
          {
            sql: 'INSERT INTO item_events (studio_uuid, seq, kind, account_id, character_id, at) VALUES (?, ?, ?, ?, ?, ?)',
            args: [event.studioUuid, event.seq, event.kind, event.accountId, event.characterId, event.at],
          },
          recordKey(SCOPES.item(request.studioUuid), request.idempotencyKey, request.fingerprint, `${event.seq} ${item.state}`),
          ...(request.note === undefined
            ? []
            : [
                {
                  sql: 'INSERT INTO player_notes (ref, account_id, note, actor) VALUES (?, ?, ?, ?)',
                  args: [itemNoteRef(item.studioUuid, event.seq), current.accountId, request.note.note, request.note.actor],
                },
              ]),
        ]);
        return { status: 'created', item, event };
      });
    },
    itemEventRecord(studioUuid, idempotencyKey, fingerprint) {
      return db.write(async (tx) => {
        const row = await itemRow(tx, studioUuid);
        return row ? storedItemEvent(tx, itemOf(row), idempotencyKey, fingerprint) : undefined;
      });
    },
    async characterOwner(characterId) {
      const row = (await db.read('SELECT account_id FROM characters WHERE id = ?', [characterId]))[0];
      return row ? text(row.account_id) : undefined;
    },
    async itemHistory(studioUuid) {
      const row = (await db.read('SELECT * FROM items WHERE studio_uuid = ?', [studioUuid]))[0];
      if (!row) return undefined;
      const events = (await db.read('SELECT * FROM item_events WHERE studio_uuid = ? ORDER BY seq', [studioUuid])).map(itemEventOf);
      return { item: itemOf(row), events };
    },
    async itemEvents(studioUuid, options) {
      const row = (await db.read('SELECT * FROM items WHERE studio_uuid = ?', [studioUuid]))[0];
      if (!row) return undefined;
      const rows = await db.read(
        `SELECT e.*, n.note AS note, n.actor AS actor FROM item_events e LEFT JOIN player_notes n ON n.ref = 'item:' || e.studio_uuid || ':' || e.seq
         WHERE e.studio_uuid = ? AND e.seq < ? ORDER BY e.seq DESC LIMIT ?`,
        [studioUuid, options.beforeSeq ?? Number.MAX_SAFE_INTEGER, options.limit + 1],
      );
      const events = rows.slice(0, options.limit).map(itemEventRecordOf);
      return { item: itemOf(row), events, nextBeforeSeq: rows.length > options.limit ? events[events.length - 1]!.seq : undefined };
    },
    async accountItems(accountId) {
      const rows = await db.read(
        "SELECT * FROM items WHERE account_id = ? AND state NOT IN ('consumed', 'destroyed', 'voided') ORDER BY minted_at, studio_uuid",
        [accountId],
      );
      return rows.map(itemOf);
    },
    async itemsOf(accountId, options) {
      const after = options.after;
      const rows = await db.read(
        `SELECT * FROM items WHERE account_id = ?${options.state === undefined ? '' : ' AND state = ?'}${after === undefined ? '' : ' AND (minted_at, studio_uuid) < (?, ?)'}
         ORDER BY minted_at DESC, studio_uuid DESC LIMIT ?`,
        [
          accountId,
          ...(options.state === undefined ? [] : [options.state]),
          ...(after === undefined ? [] : [after.mintedAt, after.studioUuid]),
          options.limit + 1,
        ],
      );
      const items = rows.slice(0, options.limit).map(itemOf);
      const last = items[items.length - 1];
      return { items, next: rows.length > options.limit && last ? { mintedAt: last.mintedAt, studioUuid: last.studioUuid } : undefined };
    },
    async itemSnapshot() {
      const items = (await db.read('SELECT * FROM items ORDER BY studio_uuid')).map(itemOf);
      const events = (await db.read('SELECT * FROM item_events ORDER BY studio_uuid, seq')).map(itemEventOf);
      const byItem = new Map<string, ItemEvent[]>(items.map((i) => [i.studioUuid, []]));
      for (const e of events) byItem.get(e.studioUuid)?.push(e);
      return items.map((item) => ({ item, events: byItem.get(item.studioUuid)! }));
    },
    changeBag(change) {
      return db.write(async (tx) => {
        const k = await lookupKey(tx, SCOPES.bag, change.sourceRef, change.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' } as const;
        if (k.status === 'same') {
          const stored = bagEntryOf((await one(tx, 'SELECT * FROM bag_entries WHERE source_ref = ?', [change.sourceRef]))!);
          return { status: 'replayed', entry: stored } as const;
        }
        const ban = change.refuseBanned ? await banIn(tx, [change.accountId], change.at) : undefined;
        if (ban) return { status: 'suspended', ban } as const;
        const row = await one(tx, 'SELECT quantity, seq FROM bag_quantities WHERE account_id = ? AND definition_id = ?', [
          change.accountId,
          change.definitionId,
        ]);
        const quantity = row ? Number(row.quantity) : 0;
        const after = quantity + change.delta;
        if (after < 0) return { status: 'insufficient', quantity } as const;
        if (!Number.isSafeInteger(after)) return { status: 'overflow' } as const;
        const entry: BagEntry = {
          accountId: change.accountId,
          definitionId: change.definitionId,
          seq: (row ? Number(row.seq) : 0) + 1,
          delta: change.delta,
          quantityAfter: after,
          sourceRef: change.sourceRef,
          at: change.at,
        };
        await tx.batch([
          {
            sql: 'INSERT INTO bag_quantities (account_id, definition_id, quantity, seq) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, definition_id) DO UPDATE SET quantity = excluded.quantity, seq = excluded.seq',
            args: [entry.accountId, entry.definitionId, after, entry.seq],
          },
          {
            sql: 'INSERT INTO bag_entries (account_id, definition_id, seq, delta, quantity_after, source_ref, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            args: [entry.accountId, entry.definitionId, entry.seq, entry.delta, after, entry.sourceRef, entry.at],
          },
          recordKey(SCOPES.bag, change.sourceRef, change.fingerprint, `${entry.accountId} ${entry.definitionId} ${entry.seq}`),
        ]);
        return { status: 'created', entry } as const;
      });
    },
    reverseBag(reversal) {
      return db.write(async (tx): Promise<BagReversalOutcome> => {
        const record = async (ref: string) => {
          const r = await one(tx, `SELECT ${BAG_COLUMNS} FROM bag_entries e ${BAG_JOINS} WHERE e.source_ref = ?`, [ref]);
          return r ? bagRecordOf(r) : undefined;
        };
        const k = await lookupKey(tx, SCOPES.bag, reversal.sourceRef, reversal.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' };
        if (k.status === 'same') return { status: 'replayed', entry: (await record(reversal.sourceRef))! };
        const original = await record(reversal.reverses);
        if (!original || original.accountId !== reversal.accountId) return { status: 'no-entry' };
        if (!original.sourceRef.startsWith(BAG_REF_PREFIX.grant)) return { status: 'not-a-grant', entry: original };
        if (original.reversedBy !== undefined) return { status: 'already-reversed', entry: (await record(original.reversedBy))! };
        const row = (await one(tx, 'SELECT quantity, seq FROM bag_quantities WHERE account_id = ? AND definition_id = ?', [
          original.accountId,
          original.definitionId,
        ]))!;
        const quantity = Number(row.quantity);
        if (quantity < original.delta) return { status: 'insufficient', quantity };
        const entry: BagRecord = {
          accountId: original.accountId,
          definitionId: original.definitionId,
          seq: Number(row.seq) + 1,
          delta: -original.delta,
          quantityAfter: quantity - original.delta,
          sourceRef: reversal.sourceRef,
          at: reversal.at,
          reverses: original.sourceRef,
          note: reversal.note.note,
          actor: reversal.note.actor,
        };
        await tx.batch([
          {
            sql: 'UPDATE bag_quantities SET quantity = ?, seq = ? WHERE account_id = ? AND definition_id = ?',
            args: [entry.quantityAfter, entry.seq, entry.accountId, entry.definitionId],
          },
          {
            sql: 'INSERT INTO bag_entries (account_id, definition_id, seq, delta, quantity_after, source_ref, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            args: [entry.accountId, entry.definitionId, entry.seq, entry.delta, entry.quantityAfter, entry.sourceRef, entry.at],
          },
          { sql: 'INSERT INTO bag_reversals (original_ref, reversal_ref) VALUES (?, ?)', args: [original.sourceRef, entry.sourceRef] },
          {
            sql: 'INSERT INTO player_notes (ref, account_id, note, actor) VALUES (?, ?, ?, ?)',
            args: [entry.sourceRef, entry.accountId, reversal.note.note, reversal.note.actor],
          },
          recordKey(SCOPES.bag, reversal.sourceRef, reversal.fingerprint, `${entry.accountId} ${entry.definitionId} ${entry.seq}`),
        ]);
        return { status: 'created', entry };
      });
    },
    async bagEntries(accountId, options) {
      const before = options.before;
      const rows = await db.read(
        `SELECT ${BAG_COLUMNS} FROM bag_entries e ${BAG_JOINS} WHERE e.account_id = ?${options.definitionId === undefined ? '' : ' AND e.definition_id = ?'}${before === undefined ? '' : ' AND (e.at, e.definition_id, e.seq) < (?, ?, ?)'}
         ORDER BY e.at DESC, e.definition_id DESC, e.seq DESC LIMIT ?`,
        [
          accountId,
          ...(options.definitionId === undefined ? [] : [options.definitionId]),
          ...(before === undefined ? [] : [before.at, before.definitionId, before.seq]),
          options.limit + 1,
        ],
      );
      const entries = rows.slice(0, options.limit).map(bagRecordOf);
      const last = entries[entries.length - 1];
      return {
        entries,
        next: rows.length > options.limit && last ? { at: last.at, definitionId: last.definitionId, seq: last.seq } : undefined,
      };
    },
    async blankNotes(accountId) {
      await db.write((tx) => tx.execute({ sql: "UPDATE player_notes SET note = '' WHERE account_id = ?", args: [accountId] }));
    },
    async bag(accountId) {
      const rows = await db.read(
        'SELECT definition_id, quantity FROM bag_quantities WHERE account_id = ? AND quantity > 0 ORDER BY definition_id',
        [accountId],
      );
      return rows.map((r) => ({ definitionId: text(r.definition_id), quantity: Number(r.quantity) }));
    },
    async bagSnapshot() {
      const quantities = (await db.read('SELECT * FROM bag_quantities ORDER BY account_id, definition_id')).map((r) => ({
        accountId: text(r.account_id),
        definitionId: text(r.definition_id),
        quantity: Number(r.quantity),
      }));
      const entries = (
        await db.read(`SELECT ${BAG_COLUMNS} FROM bag_entries e ${BAG_JOINS} ORDER BY e.account_id, e.definition_id, e.seq`)
      ).map(bagRecordOf);
      return { quantities, entries };
    },
    close() {
      return db.close();
    },
  };
}
