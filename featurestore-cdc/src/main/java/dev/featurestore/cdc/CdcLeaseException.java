package dev.featurestore.cdc;

import dev.featurestore.InvalidStateException;

/**
 * The shard is owned by another pipeline (in this or another process or host sharing the
 * catalog), or this pipeline lost its shard lease to another one: nothing was opened or
 * committed; the entries stay in the write-ahead log.
 */
public class CdcLeaseException extends InvalidStateException {
  public CdcLeaseException(String message) {
    super(message);
  }

  public CdcLeaseException(String message, Throwable cause) {
    super(message, cause);
  }
}
