package dev.featurestore.core.storage;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Whether a FileIO can list and delete files by prefix: the one check for it (table creation,
 * catalog recovery, version hints, orphan removal ask here, not with {@code instanceof}). Our
 * wrappers ({@link ForwardingFileIO}, {@link TieredFileIO}) implement {@link
 * SupportsPrefixOperations} whatever they wrap, as Java cannot implement an interface only
 * sometimes, and refuse with {@link UnsupportedOperationException} when the FileIO below cannot
 * list; for them the answer is the wrapped FileIO's. A plug-in FileIO without listing therefore
 * gets the callers' fallbacks (or their typed refusal), also behind a wrapper.
 *
 * <pre>{@code
 * PrefixOperations.of(io).ifPresent(listing -> listing.listPrefix(folder).forEach(...));
 * }</pre>
 */
public final class PrefixOperations {
  private PrefixOperations() {}

  /** {@code io} as prefix operations if it (or, for a wrapper, what it wraps) supports them, else empty. */
  public static Optional<SupportsPrefixOperations> of(FileIO io) {
    requireNonNull(io, "io is null");
    boolean supported;
    if (io instanceof ForwardingFileIO forwarding) {
      supported = forwarding.supportsPrefixOperations();
    } else if (io instanceof TieredFileIO tiered) {
      supported = tiered.supportsPrefixOperations();
    } else {
      supported = io instanceof SupportsPrefixOperations;
    }
    return supported ? Optional.of((SupportsPrefixOperations) io) : Optional.empty();
  }
}
