// The asset index contract (contract.ts) on the SQLite adapter, in a temporary folder.
import { assetIndexContract } from './contract.js';
import { onBackend, sqliteBackend } from '../helpers/backends.js';
import { openSqliteAssetIndexOn } from '../helpers/asset-index.js';

assetIndexContract(() => onBackend(sqliteBackend(), openSqliteAssetIndexOn));
