package dev.featurestore.cdc;

import java.util.OptionalLong;

/**
 * What a flush did: the entries it committed, the data files and bytes it wrote, the last snapshot
 * it committed and the first and last sequence ids it covered. A flush with nothing pending has
 * zero entries and empty ids.
 */
public record FlushResult(
    long entries, int filesWritten, long bytesWritten, OptionalLong snapshotId, OptionalLong firstSequence,
    OptionalLong lastSequence) {

  static FlushResult empty() {
    return new FlushResult(0, 0, 0, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
  }

  FlushResult plus(FlushResult other) {
    if (other.entries == 0 && other.filesWritten == 0) {
      return this;
    }
    return new FlushResult(entries + other.entries, filesWritten + other.filesWritten, bytesWritten + other.bytesWritten,
        other.snapshotId.isPresent() ? other.snapshotId : snapshotId,
        firstSequence.isPresent() ? firstSequence : other.firstSequence,
        other.lastSequence.isPresent() ? other.lastSequence : lastSequence);
  }
}
