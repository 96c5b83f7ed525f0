package dev.featurestore.spark;

import static dev.featurestore.OrphanFileRemoval.MINIMUM_SAFETY_WINDOW;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.OrphanFilesResult.OrphanFile;
import dev.featurestore.core.catalog.VersionHint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.DeleteOrphanFiles;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * {@link OrphanFileRemoval} as Iceberg's Spark {@code deleteOrphanFiles} (the reachable files are
 * found by a Spark job; the table's files are listed through its FileIO, so a bucket needs no
 * Hadoop S3 connector), with the library's rules: a safety window of at least
 * {@link OrphanFileRemoval#MINIMUM_SAFETY_WINDOW} unless {@link #unsafe()}, by the store's clock,
 * and the version hint files the store writes beside its metadata are never orphans. A dry run
 * deletes nothing.
 */
final class SparkOrphanFileRemoval implements OrphanFileRemoval {
  private final SparkTableMaintenance maintenance;
  private Duration window = DEFAULT_SAFETY_WINDOW;
  private boolean unsafe;
  private boolean used;

  SparkOrphanFileRemoval(SparkTableMaintenance maintenance) {
    this.maintenance = maintenance;
  }

  @Override
  public OrphanFileRemoval olderThan(Duration window) {
    InvalidArgumentException.requireNonNull(window, "remove orphan files", "window");
    InvalidArgumentException.check(!window.isNegative(), "Cannot remove orphan files: safety window is negative: %s", window);
    this.window = window;
    return this;
  }

  @Override
  public OrphanFileRemoval unsafe() {
    this.unsafe = true;
    return this;
  }

  @Override
  public OrphanFilesResult dryRun() {
    return run(false);
  }

  @Override
  public OrphanFilesResult execute() {
    return run(true);
  }

  private OrphanFilesResult run(boolean delete) {
    if (used) {
      throw new InvalidStateException("Cannot execute orphan file removal of table " + maintenance.id() + ": already executed");
    }
    if (!unsafe && window.compareTo(MINIMUM_SAFETY_WINDOW) < 0) {
      throw new InvalidArgumentException("Cannot remove orphan files: safety window is below the minimum of "
          + MINIMUM_SAFETY_WINDOW + " (call unsafe() if no writer is running): " + window);
    }
    used = true;
    return maintenance.run("remove orphan files", () -> {
      Table table = maintenance.table();
      FileIO io = table.io();
      if (!(io instanceof SupportsPrefixOperations listing)) {
        throw new UnsupportedOperationException("Cannot remove orphan files: the FileIO cannot list files: "
            + io.getClass().getName());
      }
      long now = maintenance.store().config().clock().millis();
      Set<String> kept = new HashSet<>(VersionHint.keptFiles(((HasTableOperations) table).operations().current()));
      List<String> found = java.util.Collections.synchronizedList(new ArrayList<>());
      DeleteOrphanFiles.Result result = maintenance.actions().deleteOrphanFiles(table)
          .usePrefixListing(true)
          .olderThan(now - window.toMillis())
          .deleteWith(location -> {
            if (!kept.contains(location)) {
              found.add(location);
            }
          })
          .execute();
      long scanned = 0;
      List<OrphanFile> orphans = new ArrayList<>();
      Set<String> wanted = new HashSet<>(found);
      String prefix = table.location().endsWith("/") ? table.location() : table.location() + "/";
      for (FileInfo file : listing.listPrefix(prefix)) {
        scanned++;
        if (wanted.contains(file.location())) {
          orphans.add(new OrphanFile(file.location(), file.size(), Duration.ofMillis(now - file.createdAtMillis())));
        }
      }
      orphans.sort(Comparator.comparing(OrphanFile::location));
      if (delete) {
        for (OrphanFile orphan : orphans) {
          io.deleteFile(orphan.location());
        }
        if (!orphans.isEmpty()) {
          maintenance.record("remove_orphan_files", null, Map.of("deleted_files", orphans.size(),
              "bytes", orphans.stream().mapToLong(OrphanFile::sizeBytes).sum(), "scanned_files", scanned));
        }
      }
      long referenced = scanned - result.orphanFilesCount();
      return new OrphanFilesResult(orphans, delete, scanned, referenced);
    });
  }
}
