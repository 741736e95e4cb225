/**
 * `resilient-socket`: everything the package offers. Importing it has no side effects.
 * @packageDocumentation
 */
export * from './backoff/index.js';
