// The throttle contract (contract.ts) on the memory adapter (a deployment without a store).
import { throttleContract } from './contract.js';
import { memoryThrottle } from '../../api/_lib/throttle/memory.js';

throttleContract(() => {
  let store = memoryThrottle();
  return {
    name: 'memory',
    setup: () => Promise.resolve(),
    fresh: () => Promise.resolve((store = memoryThrottle())),
    reopen: () => Promise.resolve(store),
    env: () => ({}),
    teardown: () => Promise.resolve(),
  };
});
