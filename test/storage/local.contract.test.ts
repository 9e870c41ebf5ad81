// The storage contract (contract.ts) on the local adapter, in a temporary folder.
import { storageContract } from './contract.js';
import { localStorageHarness } from '../helpers/storage.js';

storageContract(localStorageHarness);
