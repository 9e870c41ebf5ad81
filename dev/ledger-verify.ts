/**
 * `npm run ledger:verify`: check the invariants of the live ledger store the configuration names
 * (`api/_lib/ledger/invariants.ts`): every balance equals the sum of its postings, the balances sum to
 * zero, source refs and transfers match one to one, every hash chain verifies; and of the account bags
 * (`api/_lib/player/bag.ts`): every quantity equals the sum of its entries, entries are contiguous
 * running sums never below zero, source refs are unique; and of the unique items
 * (`api/_lib/player/items.ts`, `checkItemInvariants`): each item's events are numbered from 1, begin with its
 * mint, follow the allowed transitions, and replayed give the item as it stands. Prints a summary, or every
 * violation.
 *
 * Exit codes: 0 sound, 1 violations found, 2 bad configuration, 3 the store cannot be reached.
 */
import { pathToFileURL } from 'node:url';
import { checkInvariants } from '../api/_lib/ledger/invariants.js';
import { loadServiceConfig } from '../api/_lib/config.js';
import { checkBagInvariants } from '../api/_lib/player/bag.js';
import { checkItemInvariants } from '../api/_lib/player/items.js';
import { openPlayerStore } from '../api/_lib/player/store.js';
import { localEnvironment } from './local-env.js';
import { openConfiguredStore, withDefaults, type CliIo } from './local-env.js';

/** Run the check; resolves to the exit code. */
export async function main(io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  const store = await openConfiguredStore({ out, err, env });
  if (typeof store === 'number') return store;
  let players;
  try {
    players = await openPlayerStore(loadServiceConfig(localEnvironment(env)).store);
  } catch (e) {
    await store.close();
    err(`${(e as Error).message}\n`);
    return 3;
  }
  try {
    const snapshot = await store.snapshot();
    const bags = await players.bagSnapshot();
    const items = await players.itemSnapshot();
    const violations = [...checkInvariants(snapshot), ...checkBagInvariants(bags), ...checkItemInvariants(items)];
    const postings = snapshot.accounts.reduce((n, a) => n + a.postings.length, 0);
    if (violations.length > 0) {
      err(
        `${violations.length} violation(s) in the ${store.driver} ledger:\n` +
          violations.map((v) => `  invariant ${v.invariant}: ${v.message}`).join('\n') +
          '\n',
      );
      return 1;
    }
    out(
      `The ${store.driver} ledger is sound: ${snapshot.transfers.length} transfer(s), ${postings} posting(s) on ${snapshot.accounts.length} ledger account(s), balances sum to 0, every chain verifies; ` +
        `${bags.entries.length} bag entr${bags.entries.length === 1 ? 'y' : 'ies'} on ${bags.quantities.length} stack(s), every quantity the sum of its entries; ` +
        `${items.length} unique item(s), each as its events make it.\n`,
    );
    return 0;
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 3;
  } finally {
    await store.close();
    await players.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main().then((code) => process.exit(code));
}
