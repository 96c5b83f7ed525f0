package dev.featurestore.cdc;

import static java.util.Objects.requireNonNull;

/**
 * An entry the current-state table could not take, with the reason (for example a field whose
 * type changed incompatibly). The entry is still in the change log (if the pipeline keeps one) and
 * counts as processed: it is not retried.
 */
public record DeadLetter(CdcEntry entry, String reason) {
  public DeadLetter {
    requireNonNull(entry, "entry is null");
    requireNonNull(reason, "reason is null");
  }
}
