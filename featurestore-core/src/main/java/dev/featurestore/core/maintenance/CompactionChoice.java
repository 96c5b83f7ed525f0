package dev.featurestore.core.maintenance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Which data files a compaction rewrites, per partition, from the planned files alone (metadata:
 * sizes and delete counts). The compaction and the maintenance plan decide with the same object,
 * so a plan runs a compaction only when it would rewrite something.
 *
 * <p>Without size tiers ({@code sizeRatio} 0): every file below the small-file size, and the
 * larger files whose deletes reach the deleted-rows threshold. With tiers: the small files of a
 * partition, smallest first, are cut into tiers (a file joins the tier of the files before it
 * when it is at most {@code sizeRatio} times their total size, as the size-ratio rule of RocksDB's
 * and Paimon's universal compaction, over sizes instead of ages, since rewritten Iceberg files
 * keep no order); a tier of at least {@code tierFiles} files is merged, and every other file, small
 * or not, is rewritten only when its deletes reach the threshold.
 */
final class CompactionChoice {
  /** At most this many files in one group (one bin of the bin-packing). */
  static final int MAX_GROUP_FILES = 1_000;
  /** At most this many input bytes in one group, or the target file size if larger. */
  static final long MAX_GROUP_BYTES = 1L << 30;

  /** The files of one partition chosen for rewriting. */
  record Group(PartitionSpec spec, StructLike partition, List<FileScanTask> tasks) {}

  private final long small;
  private final long target;
  private final double deletedRowsThreshold;
  private final int minInputFiles;
  private final double sizeRatio;
  private final int tierFiles;

  /**
   * @param sizeRatio 0 for no tiers (every small file is rewritten), else at least 1
   * @param tierFiles files a tier needs to be merged (ignored without tiers)
   */
  CompactionChoice(long small, long target, double deletedRowsThreshold, int minInputFiles, double sizeRatio,
      int tierFiles) {
    this.small = small;
    this.target = target;
    this.deletedRowsThreshold = deletedRowsThreshold;
    this.minInputFiles = minInputFiles;
    this.sizeRatio = sizeRatio;
    this.tierFiles = tierFiles;
  }

  boolean tiered() {
    return sizeRatio > 0;
  }

  /** The groups to rewrite, in the order of {@code tasks} within each partition; empty if nothing is worth it. */
  List<Group> groups(Table table, List<FileScanTask> tasks) {
    Map<String, List<FileScanTask>> byPartition = new LinkedHashMap<>();
    for (FileScanTask task : tasks) {
      DataFile file = task.file();
      PartitionSpec spec = table.specs().get(file.specId());
      String key = file.specId() + "/" + spec.partitionToPath(file.partition());
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(task);
    }
    List<Group> groups = new ArrayList<>();
    long maxBytes = Math.max(target, MAX_GROUP_BYTES);
    for (List<FileScanTask> files : byPartition.values()) {
      List<FileScanTask> candidates = candidates(files);
      boolean hasDeletes = candidates.stream().anyMatch(t -> !t.deletes().isEmpty());
      if (candidates.isEmpty() || (candidates.size() < minInputFiles && !hasDeletes)) {
        continue;
      }
      // bounded groups: the rewrite of one group, and the deletes to carry over to it, stay bounded
      List<List<FileScanTask>> chunks = new ArrayList<>();
      List<FileScanTask> chunk = new ArrayList<>();
      long bytes = 0;
      for (FileScanTask task : candidates) {
        if (!chunk.isEmpty() && (chunk.size() >= MAX_GROUP_FILES || bytes + task.file().fileSizeInBytes() > maxBytes)) {
          chunks.add(chunk);
          chunk = new ArrayList<>();
          bytes = 0;
        }
        chunk.add(task);
        bytes += task.file().fileSizeInBytes();
      }
      chunks.add(chunk);
      for (List<FileScanTask> c : chunks) {
        // a leftover chunk of one file without deletes would be copied as it is: left alone
        if (chunks.size() == 1 || c.size() > 1 || !c.get(0).deletes().isEmpty()) {
          DataFile first = c.get(0).file();
          groups.add(new Group(table.specs().get(first.specId()), first.partition(), c));
        }
      }
    }
    return groups;
  }

  /** The files of one partition to rewrite, in their planned order. */
  private List<FileScanTask> candidates(List<FileScanTask> files) {
    List<FileScanTask> smallFiles = new ArrayList<>();
    Set<FileScanTask> chosen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    for (FileScanTask task : files) {
      if (task.file().fileSizeInBytes() < small) {
        smallFiles.add(task);
      } else if (deletedEnough(task, deletedRowsThreshold)) {
        chosen.add(task); // a large file with enough of its rows deleted
      }
    }
    if (!tiered()) {
      chosen.addAll(smallFiles);
    } else {
      chosen.addAll(mergedTiers(smallFiles));
      for (FileScanTask task : smallFiles) {
        if (!chosen.contains(task) && deletedEnough(task, deletedRowsThreshold)) {
          chosen.add(task);
        }
      }
    }
    List<FileScanTask> ordered = new ArrayList<>();
    for (FileScanTask task : files) {
      if (chosen.contains(task)) {
        ordered.add(task);
      }
    }
    return ordered;
  }

  /** The files of the tiers that have enough files to merge. */
  private List<FileScanTask> mergedTiers(List<FileScanTask> smallFiles) {
    List<FileScanTask> bySize = new ArrayList<>(smallFiles);
    bySize.sort(Comparator.comparingLong(t -> t.file().fileSizeInBytes()));
    List<FileScanTask> merged = new ArrayList<>();
    List<FileScanTask> tier = new ArrayList<>();
    long tierBytes = 0;
    for (FileScanTask task : bySize) {
      long size = task.file().fileSizeInBytes();
      if (!tier.isEmpty() && size > sizeRatio * tierBytes) {
        if (tier.size() >= tierFiles) {
          merged.addAll(tier);
        }
        tier = new ArrayList<>();
        tierBytes = 0;
      }
      tier.add(task);
      tierBytes += size;
    }
    if (tier.size() >= tierFiles) {
      merged.addAll(tier);
    }
    return merged;
  }

  /**
   * Whether the task's file has deletes, and they reach {@code threshold} of its rows. Deletes that
   * cannot be counted for this file alone (equality deletes, position-delete files covering several
   * data files) count as reaching it, as every file with deletes was rewritten before the threshold.
   */
  static boolean deletedEnough(FileScanTask task, double threshold) {
    if (task.deletes().isEmpty()) {
      return false;
    }
    long deleted = 0;
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.POSITION_DELETES || !ContentFileUtil.isFileScoped(delete)) {
        return true;
      }
      deleted += delete.recordCount();
    }
    long rows = task.file().recordCount();
    return rows <= 0 || deleted >= threshold * rows;
  }
}
