package dev.featurestore;

import java.time.Duration;
import java.util.List;

/**
 * The orphan files found (and deleted, unless a dry run).
 *
 * @param candidates the orphan files, sorted by location (cold-tier orphans carry their cold
 *     {@code s3://} location)
 * @param deleted whether they were deleted ({@code false} for a dry run)
 * @param scannedFiles files listed under the table location, plus under its cold prefix when the
 *     store has cold storage
 * @param referencedFiles files the table's metadata references
 */
public record OrphanFilesResult(List<OrphanFile> candidates, boolean deleted, long scannedFiles, long referencedFiles) {
  public OrphanFilesResult {
    candidates = List.copyOf(candidates);
  }

  /** Total bytes of the candidates. */
  public long bytes() {
    return candidates.stream().mapToLong(OrphanFile::sizeBytes).sum();
  }

  /**
   * One orphan file.
   *
   * @param location its location
   * @param sizeBytes its size
   * @param age time since it was last modified
   */
  public record OrphanFile(String location, long sizeBytes, Duration age) {}
}
