package dev.featurestore.cdc;

import dev.featurestore.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What a flush did: the entries it committed, the data files and bytes it wrote, the last snapshot
 * it committed and the first and last sequence ids it covered. A flush with nothing pending has
 * zero entries and empty ids.
 *
 * @param filesWritten the number of data files written, {@code dataFiles().size()}
 * @param dataFiles the locations of the data files the flush committed, in commit order (every
 *     target table's: the change log's and the current state's)
 */
public record FlushResult(
    long entries, int filesWritten, long bytesWritten, OptionalLong snapshotId, OptionalLong firstSequence,
    OptionalLong lastSequence, List<String> dataFiles) {

  public FlushResult {
    InvalidArgumentException.requireNonNull(snapshotId, "describe flush", "snapshotId");
    InvalidArgumentException.requireNonNull(firstSequence, "describe flush", "firstSequence");
    InvalidArgumentException.requireNonNull(lastSequence, "describe flush", "lastSequence");
    dataFiles = List.copyOf(InvalidArgumentException.requireNonNull(dataFiles, "describe flush", "dataFiles"));
    InvalidArgumentException.check(filesWritten == dataFiles.size(),
        "Cannot describe flush: files written differ from the files named: %s != %s", filesWritten, dataFiles.size());
  }

  static FlushResult empty() {
    return new FlushResult(0, 0, 0, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), List.of());
  }

  FlushResult plus(FlushResult other) {
    if (other.entries == 0 && other.filesWritten == 0) {
      return this;
    }
    List<String> files = new ArrayList<>(dataFiles);
    files.addAll(other.dataFiles);
    return new FlushResult(entries + other.entries, filesWritten + other.filesWritten, bytesWritten + other.bytesWritten,
        other.snapshotId.isPresent() ? other.snapshotId : snapshotId,
        firstSequence.isPresent() ? firstSequence : other.firstSequence,
        other.lastSequence.isPresent() ? other.lastSequence : lastSequence, files);
  }
}
