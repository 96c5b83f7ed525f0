package dev.featurestore.cdc;

/** What a pipeline keeps; a pipeline may keep both, each in its own table. */
public enum CdcMode {
  /** Every entry appended, with its operation, sequence and before/after images. */
  CHANGE_LOG,
  /** One row per (collection, doc id): updates replace it, deletes remove it (see {@link CurrentStateLayout}). */
  CURRENT_STATE
}
