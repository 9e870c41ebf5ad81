/**
 * Player state (spec 1.7, 1.8, 2.6, 2.8, 2.9, 4.8): the home island, characters with their progress, and
 * learned recipes, behind one store interface that both adapters implement (`sqlite.ts`, `redis.ts`;
 * docs/architecture.md, "Player state"). The game API owns this state; nothing else writes it.
 *
 * Every write is safe to repeat (a retry after a lost answer never applies twice): an island save and a
 * progress save carry a write id or idempotency key that the store keeps with the result, a character is
 * created under an id minted before the call (and an optional client key), and learning a recipe twice
 * changes nothing. Every write makes its checks before its first change.
 *
 * Bans (spec 5.3; docs/architecture.md, "Sessions and bans"): a write whose input carries `refuseBanned`
 * reads the ban of every account it changes in its own transaction or script, after its idempotency
 * record (a replay changes nothing and still answers), and changes nothing while one holds at the write's
 * own time (`suspended`, {@link Suspended}). So a ban, once answered, is followed by no such write.
 *
 * Units: times are ISO 8601 UTC strings with milliseconds; revisions count from 1 and grow by 1 per change.
 */
import type { IslandState } from '../island/generate.js';
import type { AccountBan } from '../ledger/types.js';
import type { KeyReused } from '../stores/idempotency.js';
import type { StoreIdentity } from '../stores/unavailable.js';

/** The player store's name in its 503s. */
export const PLAYER_STORE: StoreIdentity = Object.freeze({ name: 'player store', retryHint: '' });

/**
 * Outcome of a write that carries `refuseBanned` (see the module header): an account it would change is
 * banned at the write's time (a ban without end, or one whose end is later); nothing changed. The ban as
 * stored; services say until when, never the reason.
 */
export interface Suspended {
  readonly status: 'suspended';
  readonly ban: AccountBan;
}

/** The eras of 2.8 (characters belong to one). */
export const ERAS = ['warlords', 'voxel', 'nexus', 'armada'] as const;
/** One era. */
export type Era = (typeof ERAS)[number];

/** A stored island: its state, revision (the ETag) and last change. */
export interface IslandDoc {
  readonly state: IslandState;
  readonly revision: number;
  readonly updatedAt: string;
}

/** Input of {@link PlayerStore.saveIsland}. */
export interface IslandSave {
  /** The revision the caller read (`If-Match`). */
  readonly expectedRevision: number;
  readonly state: IslandState;
  /** Minted once per request: a second run of the same save answers `saved` with the same document. */
  readonly writeId: string;
  readonly at: string;
  /** Refuse the save while the account is banned at `at`, checked in the write (module header); default false. */
  readonly refuseBanned?: boolean;
}

/** Result of {@link PlayerStore.saveIsland}. */
export type IslandSaveOutcome =
  | { readonly status: 'saved'; readonly doc: IslandDoc }
  | Suspended
  /** The stored revision is not the expected one; nothing changed. */
  | { readonly status: 'stale'; readonly revision: number }
  /** The account has no island yet; nothing changed. */
  | { readonly status: 'missing' };

/** Character-scoped progress (spec 2.8), with the spec's field names. */
export interface Progress {
  readonly attributes: Readonly<Record<string, number>>;
  readonly profession_levels: Readonly<Record<string, number>>;
  readonly equipment_on_body: Readonly<Record<string, string | null>>;
  readonly weapon_mastery: Readonly<Record<string, number>>;
  readonly skill_loadouts: readonly { readonly name: string; readonly skills: readonly string[] }[];
}

/** A character (spec 2.6, 2.8). */
export interface Character {
  /** `characters.id`, RFC 4122 uuid: the only handoff key. */
  readonly id: string;
  /** `characters.studio_code`, `STDG-XXXX-XXXX`: display and support only, never a key. */
  readonly studioCode: string;
  /** The owning account's `accounts.id`. */
  readonly accountId: string;
  /** `game_era`. */
  readonly era: Era;
  readonly name: string;
  readonly classId: string;
  readonly raceId: string;
  readonly factionId: string;
  readonly createdAt: string;
  readonly progress: Progress;
  /** `progress_revision`: 1 at creation, +1 per saved progress change. */
  readonly progressRevision: number;
  readonly updatedAt: string;
}

/** Input of {@link PlayerStore.createCharacter}. */
export interface NewCharacter {
  readonly character: Character;
  /** Most characters of one era per account. */
  readonly slotsPerEra: number;
  /** Client idempotency key of the creation, with the request's fingerprint, or undefined. */
  readonly clientKey: string | undefined;
  readonly fingerprint: string;
}

/**
 * Result of {@link PlayerStore.createCharacter}: `created` (also when a retry of this very call finds
 * its own character), `replayed` (the client key created this character before with the same
 * fingerprint), `key-reused` (with another), or `full` (every slot of the era taken; nothing changed).
 */
export type CreateCharacterOutcome =
  | { readonly status: 'created' | 'replayed'; readonly character: Character }
  | { readonly status: 'full'; readonly slotsPerEra: number }
  | KeyReused;

/** Input of {@link PlayerStore.saveProgress}. */
export interface ProgressSave {
  readonly expectedRevision: number;
  readonly progress: Progress;
  /** Kept forever with the revision the save made: a second request with it is a replay. */
  readonly idempotencyKey: string;
  /** Fingerprint of the request (the patch and the expected revision) bound to the key. */
  readonly fingerprint: string;
  readonly at: string;
  /**
   * The unique items the saved progress wears (`equipment_on_body`'s values), checked in the write itself:
   * each must be minted, owned by the account, and owned, assigned or equipped with no character or this one.
   * The save binds each to the character in the item ledger (an `equipped` event where it is not equipped
   * on it yet), so no other character can wear it and it cannot move to another account while worn.
   */
  readonly equipment: readonly string[];
  /**
   * The items the progress at `expectedRevision` wore and the saved one does not: each still equipped on
   * this character is released in the same write (an `unequipped` event: owned, no character). Default none.
   */
  readonly unequip?: readonly string[];
  /** Refuse the save while the account is banned at `at`, checked in the write (module header); default false. */
  readonly refuseBanned?: boolean;
}

/** The unique items a progress wears: the distinct values of `equipment_on_body`. */
export function wornItems(progress: Progress): string[] {
  return [...new Set(Object.values(progress.equipment_on_body).filter((v): v is string => typeof v === 'string'))];
}

/** Why an item the progress would wear is refused: not minted, another account's, or in a state or on a character that forbids it. */
export interface EquipmentRefusal {
  readonly studioUuid: string;
  readonly reason: 'missing' | 'not-owned' | 'state';
}

/**
 * Result of {@link PlayerStore.saveProgress}: `created` (saved now, the character after it), `replayed`
 * (the key saved before with the same request: nothing changed; the character as it stands and the
 * revision that save made, which is the character's revision unless later saves followed), `key-reused`,
 * `stale` (the character is at another revision), `missing` (no such character of the account).
 */
export type ProgressSaveOutcome =
  | { readonly status: 'created'; readonly character: Character }
  | { readonly status: 'equipment-refused'; readonly refused: readonly EquipmentRefusal[] }
  | { readonly status: 'replayed'; readonly character: Character; readonly revision: number }
  | { readonly status: 'stale'; readonly revision: number }
  | { readonly status: 'missing' }
  | Suspended
  | KeyReused;

/** A learned recipe. */
export interface LearnedRecipe {
  readonly recipeId: string;
  readonly learnedAt: string;
}

/** An external identity bound to an account (spec 5.5: the external user id, its username, the link time; never a token). */
export interface ExternalLink {
  readonly provider: string;
  readonly externalUserId: string;
  readonly username: string;
  readonly accountId: string;
  readonly linkedAt: string;
}

/** Result of {@link PlayerStore.linkExternal}: always the stored link. */
export interface LinkOutcome {
  /** `linked` now; `existing` to the same account before; `taken` by another account (nothing changed). */
  readonly status: 'linked' | 'existing' | 'taken';
  readonly link: ExternalLink;
}

/**
 * Events of a unique item's life (spec 2.6, 4.8 `/api/ledger`); `voided` is an operator's (docs/architecture.md,
 * "Voided items"), never a game server's.
 */
export const ITEM_EVENTS = ['minted', 'assigned', 'equipped', 'unequipped', 'transferred', 'consumed', 'destroyed', 'voided'] as const;
/** One item event kind. */
export type ItemEventKind = (typeof ITEM_EVENTS)[number];
/** States of a unique item; `consumed`, `destroyed` and `voided` are final ({@link FINAL_STATES}). */
export type ItemState = 'owned' | 'assigned' | 'equipped' | 'consumed' | 'destroyed' | 'voided';
/** Every item state, in the order of the item's life. */
export const ITEM_STATES: readonly ItemState[] = Object.freeze(['owned', 'assigned', 'equipped', 'consumed', 'destroyed', 'voided']);
/** The states after which nothing happens to an item: it is no longer owned, but stays in its history. */
export const FINAL_STATES: readonly ItemState[] = Object.freeze(['consumed', 'destroyed', 'voided']);

/** A unique item instance (`studio_uuid`) as it stands. */
export interface ItemInstance {
  /** `studio_uuid`, an RFC 4122 uuid minted by the server: never a definition id. */
  readonly studioUuid: string;
  /** The definition it instantiates (an `ITEM-*` id of the catalog). */
  readonly definitionId: string;
  /** The owning account's `accounts.id`. */
  readonly accountId: string;
  readonly state: ItemState;
  /** The character it is assigned to or worn by, else null. */
  readonly characterId: string | null;
  /** Number of events so far (1 after minting). */
  readonly seq: number;
  readonly mintedAt: string;
  readonly updatedAt: string;
}

/** One recorded event (append-only). */
export interface ItemEvent {
  readonly studioUuid: string;
  readonly seq: number;
  readonly kind: ItemEventKind;
  /** The owner after the event. */
  readonly accountId: string;
  readonly characterId: string | null;
  readonly at: string;
}

/**
 * What is kept beside an operator's entry (a bag reversal, an item's void) rather than in it
 * (docs/architecture.md, "Erasure and the chain"): why, and who asked. An erasure of the account blanks
 * the note ({@link PlayerStore.blankNotes}); the actor stays.
 */
export interface EntryNote {
  /** Why, as the operator wrote it (stored text, `api/_lib/text/stored.ts`). */
  readonly note: string;
  /** Who asked: `<role>:<subject>` of an operator token, or `admin-password`. */
  readonly actor: string;
}

/** An event as operators read it: with its note when an operator recorded it (a void). */
export interface ItemEventRecord extends ItemEvent {
  readonly note?: string;
  readonly actor?: string;
}

/** A place in an account's items, newest mint first: the mint time and id of the last item of a page. */
export interface ItemPosition {
  readonly mintedAt: string;
  readonly studioUuid: string;
}

/** Input of {@link PlayerStore.mintItem}: the instance as minted, under an idempotency key kept forever. */
export interface MintRequest {
  readonly item: ItemInstance;
  readonly idempotencyKey: string;
  /** Fingerprint of the request (definition and owner) bound to the key. */
  readonly fingerprint: string;
  /** Refuse the mint while the owner is banned at `mintedAt`, checked in the write (module header); default false. */
  readonly refuseBanned?: boolean;
}

/**
 * Result of {@link PlayerStore.mintItem}: `created` now or `replayed` (the item and event as minted),
 * `key-reused`, or `suspended`.
 */
export type MintOutcome =
  { readonly status: 'created' | 'replayed'; readonly item: ItemInstance; readonly event: ItemEvent } | KeyReused | Suspended;

/** Input of {@link PlayerStore.recordItemEvent}. */
export interface ItemEventRequest {
  readonly studioUuid: string;
  readonly kind: Exclude<ItemEventKind, 'minted'>;
  /** States the event may follow (from the one transition table, `items.ts`). */
  readonly from: readonly ItemState[];
  readonly to: ItemState;
  /** The owner after the event (the new one for a transfer; else the current one is kept when undefined). */
  readonly accountId: string | undefined;
  /** For an assignment or equipping: a character of {@link expectedOwner}, checked in the write itself. */
  readonly characterId: string | null;
  /** The owner the caller validated the event against: a write finding another owner changes nothing (`moved`). */
  readonly expectedOwner: string;
  /** Kept forever per instance: the same key again answers the first result. */
  readonly idempotencyKey: string;
  readonly fingerprint: string;
  readonly at: string;
  /**
   * Refuse the event while the owner, or the new owner of a transfer, is banned at `at`, checked in the
   * write (module header); default false.
   */
  readonly refuseBanned?: boolean;
  /** An operator's event (a void): why and who asked, kept beside the event. */
  readonly note?: EntryNote;
}

/**
 * Result of {@link PlayerStore.recordItemEvent}: `created` or `replayed` (the item right after the event,
 * and the event), `key-reused`, `forbidden` (the item's state forbids the event; nothing changed),
 * `missing` (no such item) or `suspended`.
 */
export type ItemEventOutcome =
  | { readonly status: 'created' | 'replayed'; readonly item: ItemInstance; readonly event: ItemEvent }
  /** The owner is not the one the caller validated against, or the character is not the owner's (any more); nothing changed. */
  | { readonly status: 'moved' }
  | { readonly status: 'forbidden'; readonly item: ItemInstance }
  | { readonly status: 'missing' }
  | Suspended
  | KeyReused;

/** One change of a bag quantity (append-only; `quantityAfter` is the running sum of `delta`). */
export interface BagEntry {
  readonly accountId: string;
  readonly definitionId: string;
  /** 1, 2, … per (account, definition). */
  readonly seq: number;
  /** Positive for a grant, negative for a consumption or a reversal. */
  readonly delta: number;
  readonly quantityAfter: number;
  /**
   * `bag-grant:{key}`, `bag-consume:{key}` or `bag-reversal:{key}` ({@link BAG_REF_PREFIX}): unique
   * forever, and the entry's name (docs/architecture.md, "Bag reversals").
   */
  readonly sourceRef: string;
  readonly at: string;
}

/** The kinds of bag entry, each with its source-ref family. */
export const BAG_REF_PREFIX = Object.freeze({ grant: 'bag-grant:', consume: 'bag-consume:', reversal: 'bag-reversal:' } as const);
/** One kind of bag entry. */
export type BagEntryKind = keyof typeof BAG_REF_PREFIX;

/** The kind of an entry by its source ref's family, or undefined for a ref of none. */
export function bagEntryKind(sourceRef: string): BagEntryKind | undefined {
  return (Object.keys(BAG_REF_PREFIX) as BagEntryKind[]).find((k) => sourceRef.startsWith(BAG_REF_PREFIX[k]));
}

/**
 * A bag entry with its reversal links (docs/architecture.md, "Bag reversals"): a reversal names the
 * grant it reverses, a reversed grant its reversal (both by source ref), and a reversal carries its note.
 */
export interface BagRecord extends BagEntry {
  /** For a reversal: the source ref of the grant it reverses. */
  readonly reverses?: string;
  /** For a reversed grant: the source ref of its reversal. */
  readonly reversedBy?: string;
  /** For a reversal: why (blank after an erasure of the account). */
  readonly note?: string;
  /** For a reversal: who asked. */
  readonly actor?: string;
}

/** A place in an account's bag entries, newest first: the time, definition and sequence of the last entry of a page. */
export interface BagPosition {
  readonly at: string;
  readonly definitionId: string;
  readonly seq: number;
}

/** Input of {@link PlayerStore.reverseBag}: ids and time chosen by the caller (a retry sends the same). */
export interface BagReversal {
  readonly accountId: string;
  /** The source ref of the grant to reverse. */
  readonly reverses: string;
  /** `bag-reversal:{key}`: unique forever. */
  readonly sourceRef: string;
  /** Fingerprint of the request (the account and the grant) bound to the source ref. */
  readonly fingerprint: string;
  readonly note: EntryNote;
  readonly at: string;
}

/**
 * Result of {@link PlayerStore.reverseBag} (nothing is written but for `created`): `created` or `replayed`
 * (the reversal's entry); `key-reused`; `no-entry` (no entry of the account has the source ref);
 * `not-a-grant` (it is a consumption or a reversal, with the entry); `already-reversed` (with the
 * reversal that reversed it); `insufficient` (the quantity held is below the grant's, with the quantity).
 */
export type BagReversalOutcome =
  | { readonly status: 'created' | 'replayed'; readonly entry: BagRecord }
  | KeyReused
  | { readonly status: 'no-entry' }
  | { readonly status: 'not-a-grant' | 'already-reversed'; readonly entry: BagRecord }
  | { readonly status: 'insufficient'; readonly quantity: number };

/** Input of {@link PlayerStore.changeBag}. */
export interface BagChange {
  readonly accountId: string;
  readonly definitionId: string;
  readonly delta: number;
  readonly sourceRef: string;
  /** Fingerprint of the request (account, definition, delta) bound to the source ref. */
  readonly fingerprint: string;
  readonly at: string;
  /** Refuse the change while the account is banned at `at`, checked in the write (module header); default false. */
  readonly refuseBanned?: boolean;
}

/**
 * Result of {@link PlayerStore.changeBag}: `created` or `replayed` (the entry), `key-reused`,
 * `insufficient` (a consumption beyond the quantity held), `overflow` (a grant past the largest safe
 * integer) or `suspended`; nothing changed but for `created`.
 */
export type BagChangeOutcome =
  | { readonly status: 'created' | 'replayed'; readonly entry: BagEntry }
  | { readonly status: 'insufficient'; readonly quantity: number }
  | { readonly status: 'overflow' }
  | Suspended
  | KeyReused;

/** A stackable held in a bag. */
export interface BagLine {
  readonly definitionId: string;
  readonly quantity: number;
}

/** The player state store (see the module header). Every method may throw ServiceError UPSTREAM_UNAVAILABLE (503). */
export interface PlayerStore {
  readonly driver: 'sqlite' | 'redis';
  /** The account's island, created from `initial` (revision 1) when it has none; atomic. */
  island(accountId: string, initial: () => IslandDoc): Promise<IslandDoc>;
  /** The account's island as stored, or undefined when it has none yet (never creates one). */
  findIsland(accountId: string): Promise<IslandDoc | undefined>;
  /** Replace the island's state when its revision is `expectedRevision` (+1); atomic, retry-safe. */
  saveIsland(accountId: string, save: IslandSave): Promise<IslandSaveOutcome>;
  /** Create a character within its era's slots; atomic, retry-safe. */
  createCharacter(input: NewCharacter): Promise<CreateCharacterOutcome>;
  /** The account's characters of an era, oldest first. */
  characters(accountId: string, era: Era): Promise<Character[]>;
  /** One character of the account; undefined when it has no such character (another account's included). */
  character(accountId: string, characterId: string): Promise<Character | undefined>;
  /** The account a character belongs to, or undefined when no character has this id. */
  characterOwner(characterId: string): Promise<string | undefined>;
  /** Save a character's progress when its revision is `expectedRevision` (+1); atomic, once per key. */
  saveProgress(accountId: string, characterId: string, save: ProgressSave): Promise<ProgressSaveOutcome>;
  /** What a progress key already decided for the character (its replay, or `key-reused`), or undefined for a key not used on it. */
  progressRecord(
    accountId: string,
    characterId: string,
    idempotencyKey: string,
    fingerprint: string,
  ): Promise<ProgressSaveOutcome | undefined>;
  /**
   * Learn a recipe; the first time wins (`learned` false and the first time when known). With
   * `refuseBanned`, `suspended` while the account is banned at `at` (the module header; a known recipe
   * still answers).
   */
  learnRecipe(
    accountId: string,
    recipeId: string,
    at: string,
    options?: { readonly refuseBanned?: boolean },
  ): Promise<{ readonly learned: boolean; readonly recipe: LearnedRecipe } | Suspended>;
  /** The account's learned recipes, by time learned then id. */
  recipes(accountId: string): Promise<LearnedRecipe[]>;
  /** Bind an external identity to an account; the first binding of an identity wins; atomic. */
  linkExternal(link: ExternalLink): Promise<LinkOutcome>;
  /** The binding of an external identity, if any. */
  externalLink(provider: string, externalUserId: string): Promise<ExternalLink | undefined>;
  /** The external identities bound to an account, by provider then external user id. */
  externalLinksOf(accountId: string): Promise<ExternalLink[]>;
  /**
   * Remove every external identity bound to an account (an erasure, docs/architecture.md, "Erasure and
   * the chain"); atomic, and safe to repeat. The identity's external login still finds the account it
   * created (its creation key is kept), which is closed.
   */
  removeExternalLinks(accountId: string): Promise<void>;
  /** Mint a unique item once per idempotency key (the first instance for the key, forever); atomic. */
  mintItem(request: MintRequest): Promise<MintOutcome>;
  /** Record an event the item's state allows, once per (item, key); atomic. */
  recordItemEvent(request: ItemEventRequest): Promise<ItemEventOutcome>;
  /** The outcome an item event's key already decided (its replay, or `key-reused`), or undefined for a key not used on this item. */
  itemEventRecord(studioUuid: string, idempotencyKey: string, fingerprint: string): Promise<ItemEventOutcome | undefined>;
  /** An item and its events, oldest first; undefined when no such item was minted. */
  itemHistory(studioUuid: string): Promise<{ item: ItemInstance; events: ItemEvent[] } | undefined>;
  /**
   * A page of an item's events, newest first, with `seq < beforeSeq` when given, each with its note when
   * an operator recorded it; undefined when no such item was minted.
   * @param limit 1-1000.
   */
  itemEvents(
    studioUuid: string,
    options: { readonly beforeSeq?: number | undefined; readonly limit: number },
  ): Promise<{ item: ItemInstance; events: ItemEventRecord[]; nextBeforeSeq: number | undefined } | undefined>;
  /** The items an account owns now (consumed, destroyed and voided ones excluded), by mint time. */
  accountItems(accountId: string): Promise<ItemInstance[]>;
  /**
   * A page of the items of an account: those it owns now and those that ended in its hands (consumed,
   * destroyed, voided), newest mint first (mint time, then id, both descending), after `after` when given,
   * of one state when `state` is given.
   * @param limit 1-1000.
   */
  itemsOf(
    accountId: string,
    options: { readonly state?: ItemState | undefined; readonly after?: ItemPosition | undefined; readonly limit: number },
  ): Promise<{ items: ItemInstance[]; next: ItemPosition | undefined }>;
  /** Every item with its events, oldest first, by item id (for the invariants, `checkItemInvariants`). */
  itemSnapshot(): Promise<{ item: ItemInstance; events: ItemEvent[] }[]>;
  /** Grant or consume a stackable once per source ref; never below zero; atomic. */
  changeBag(change: BagChange): Promise<BagChangeOutcome>;
  /**
   * Reverse a bag grant once (docs/architecture.md, "Bag reversals"): an entry of the opposite amount
   * under its own source ref, linked to the grant, in one atomic step; once per source ref (see
   * {@link BagReversalOutcome}).
   */
  reverseBag(reversal: BagReversal): Promise<BagReversalOutcome>;
  /**
   * A page of an account's bag entries with their reversal links, newest first (time, definition id and
   * sequence, all descending), before `before` when given, of one definition when `definitionId` is given.
   * @param limit 1-1000.
   */
  bagEntries(
    accountId: string,
    options: { readonly definitionId?: string | undefined; readonly before?: BagPosition | undefined; readonly limit: number },
  ): Promise<{ entries: BagRecord[]; next: BagPosition | undefined }>;
  /**
   * Blank the notes of an account's operator entries (its bag reversals, the voids of items it owned):
   * part of an erasure (docs/architecture.md, "Erasure and the chain"); safe to repeat.
   */
  blankNotes(accountId: string): Promise<void>;
  /** The account's stackables with a quantity above zero, by definition id. */
  bag(accountId: string): Promise<BagLine[]>;
  /**
   * Every bag quantity and every entry with its reversal links (for the invariants: quantity = sum of
   * entries, reversals mirror their grants), quantities by account then definition id, entries by account,
   * definition id, then sequence.
   */
  bagSnapshot(): Promise<{ quantities: (BagLine & { accountId: string })[]; entries: BagRecord[] }>;
  close(): Promise<void>;
}

/** The fixed fields of a character (all but progress, revision and last change) as JSON: what adapters store once. */
export function characterBody(c: Character): string {
  return JSON.stringify({
    id: c.id,
    studioCode: c.studioCode,
    accountId: c.accountId,
    era: c.era,
    name: c.name,
    classId: c.classId,
    raceId: c.raceId,
    factionId: c.factionId,
    createdAt: c.createdAt,
  });
}

/** States in which an item may be worn (with no character, or on the character that wears it): the states of an owned item. */
export const WEARABLE: readonly ItemState[] = Object.freeze(['owned', 'assigned', 'equipped']);

/** The ban of `ban`'s fields if it holds at `at` (ISO 8601 UTC, compared as text: both are `toISOString()`'s form), else undefined. */
export function banHolding(ban: AccountBan | undefined, at: string): AccountBan | undefined {
  return ban !== undefined && (ban.until === undefined || ban.until > at) ? ban : undefined;
}

/**
 * The item right after `event` (whose state after is `state`): what that event's request answered, read
 * back from the item as it stands (its definition and mint time) and the recorded event, for a replay.
 */
export function itemAfter(current: ItemInstance, event: ItemEvent, state: ItemState): ItemInstance {
  return { ...current, accountId: event.accountId, state, characterId: event.characterId, seq: event.seq, updatedAt: event.at };
}
