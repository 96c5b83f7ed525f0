package dev.featurestore;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which data files of a snapshot a filter keeps and which it drops, file by file, with the reason.
 * The decisions are those of the table scan: the same partition projection and column-statistics
 * evaluation, so {@link #kept()} lists exactly the files a query with this filter reads.
 *
 * @param snapshotId the snapshot explained (-1 for an empty table)
 * @param filter the filter, as Iceberg prints it
 * @param files one decision per live data file, in manifest order
 */
public record PruningReport(long snapshotId, String filter, List<FileDecision> files) {
  public PruningReport {
    files = List.copyOf(files);
  }

  public List<FileDecision> kept() {
    return files.stream().filter(FileDecision::kept).toList();
  }

  public List<FileDecision> dropped() {
    return files.stream().filter(f -> !f.kept()).toList();
  }

  /**
   * Each partition (by spec id and path, {@code "<specId>:<path>"}) and whether any of its files
   * is kept, sorted.
   */
  public Map<String, Boolean> partitions() {
    Map<String, Boolean> partitions = new TreeMap<>();
    for (FileDecision file : files) {
      partitions.merge(file.specId() + ":" + file.partitionPath(), file.kept(), Boolean::logicalOr);
    }
    return partitions;
  }

  /** A line per file: outcome, location and reason. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("PruningReport{snapshot=" + snapshotId + ", filter=" + filter
        + ", kept=" + kept().size() + "/" + files.size() + "}");
    for (FileDecision file : files) {
      out.append("\n  ").append(file.outcome()).append(' ').append(file.location()).append(": ").append(file.reason());
    }
    return out.toString();
  }
}
