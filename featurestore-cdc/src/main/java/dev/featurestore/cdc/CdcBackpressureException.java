package dev.featurestore.cdc;

import dev.featurestore.FeatureStoreException;

/**
 * A pipeline with {@link Backpressure#FAIL_FAST} has as many pending entries as it may hold:
 * commits are falling behind. The entry was not accepted (not in the write-ahead log, no sequence
 * id assigned); slow down or retry later.
 */
public class CdcBackpressureException extends FeatureStoreException {
  public CdcBackpressureException(String message) {
    super(message);
  }
}
