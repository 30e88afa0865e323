// The change ids passed to patched(), one per workflow change (docs/operations.md, "Versioning the delivery
// workflow"). An id is never reused, and stays in the code as long as a run that took the old path may exist.
export const patches = {
  /** Manual retry by update; a run started by one reads its first attempt number from the records. */
  manualRetryUpdate: 'manual-retry-update',
} as const;
