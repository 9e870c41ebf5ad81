// The storage contract (contract.ts) on the s3 adapter, against an S3-protocol server (s3rver) on 127.0.0.1.
import { storageContract } from './contract.js';
import { s3StorageHarness } from '../helpers/storage.js';

storageContract(s3StorageHarness);
