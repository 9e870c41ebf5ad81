/**
 * Types of the generated `request-validators.js` (`npm run validators`, `dev/request-validators.ts`):
 * one Ajv validator per request schema of `schemas/requests/`, keyed by schema name
 * (`verify-send-to-account`).
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';

declare const requestValidators: Readonly<Record<string, ValidateFunction>>;
export default requestValidators;
