package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;

/**
 * An entry the current-state table could not take, with the reason (for example a field whose
 * type changed incompatibly). The entry is still in the change log (if the pipeline keeps one) and
 * counts as processed: it is not retried.
 */
public record DeadLetter(CdcEntry entry, String reason) {
  public DeadLetter {
    InvalidArgumentException.requireNonNull(entry, "create dead letter", "entry");
    InvalidArgumentException.requireNonNull(reason, "create dead letter", "reason");
  }
}
