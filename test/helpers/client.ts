/**
 * Helpers for tests of the typed client (`client/`).
 */
import { ApiError } from '../../client/src/index.js';

/**
 * The rejection of `p` as the client's ApiError.
 * @throws Error when `p` resolves, or rejects with anything else.
 */
export async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e: unknown = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}
