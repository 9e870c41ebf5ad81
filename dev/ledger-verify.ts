/**
 * `npm run ledger:verify`: check the invariants of the live ledger store the configuration names
 * (`api/_lib/ledger/invariants.ts`): every balance equals the sum of its postings, the balances sum to
 * zero, source refs and transfers match one to one, every hash chain verifies. Prints a summary, or
 * every violation.
 *
 * Exit codes: 0 sound, 1 violations found, 2 bad configuration, 3 the store cannot be reached.
 */
import { pathToFileURL } from 'node:url';
import { checkInvariants } from '../api/_lib/ledger/invariants.js';
import { openConfiguredStore, withDefaults, type CliIo } from './local-env.js';

/** Run the check; resolves to the exit code. */
export async function main(io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  const store = await openConfiguredStore({ out, err, env });
  if (typeof store === 'number') return store;
  try {
    const snapshot = await store.snapshot();
    const violations = checkInvariants(snapshot);
    const postings = snapshot.accounts.reduce((n, a) => n + a.postings.length, 0);
    if (violations.length > 0) {
      err(`${violations.length} violation(s) in the ${store.driver} ledger:\n` + violations.map((v) => `  invariant ${v.invariant}: ${v.message}`).join('\n') + '\n');
      return 1;
    }
    out(`The ${store.driver} ledger is sound: ${snapshot.transfers.length} transfer(s), ${postings} posting(s) on ${snapshot.accounts.length} ledger account(s), balances sum to 0, every chain verifies.\n`);
    return 0;
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 3;
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main().then((code) => process.exit(code));
}
