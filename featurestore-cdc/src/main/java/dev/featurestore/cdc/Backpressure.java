package dev.featurestore.cdc;

/** What {@code createEntry} does when the pending (accepted, uncommitted) entries reach the bound. */
public enum Backpressure {
  /** Wait until commits make room. */
  BLOCK,
  /** Throw {@link CdcBackpressureException} at once; the entry is not accepted. */
  FAIL_FAST
}
