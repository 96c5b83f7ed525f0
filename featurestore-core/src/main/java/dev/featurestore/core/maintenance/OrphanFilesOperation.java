package dev.featurestore.core.maintenance;


import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.OrphanFileRemoval;
import dev.featurestore.OrphanFilesResult;
import dev.featurestore.OrphanFilesResult.OrphanFile;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.storage.PrefixOperations;
import dev.featurestore.core.storage.TieredFileIO;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds files under the table location that the table's metadata does not reference and that are
 * older than the safety window. The reference set is computed before listing, so a file a
 * concurrent commit adds after that is young and falls inside the window.
 *
 * <p>With a cold tier, the table's prefix in the cold bucket is listed too. A cold object is
 * referenced if a snapshot names its cold location or the hot location it was moved from (an older
 * snapshot naming the hot path is served by the cold copy), so only cold objects no snapshot can
 * reach either way are orphans, under the same window.
 */
final class OrphanFilesOperation implements OrphanFileRemoval {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanFilesOperation.class);

  private final TableHandle handle;
  private Duration window = DEFAULT_SAFETY_WINDOW;
  private boolean unsafe = false;
  private boolean used = false;

  OrphanFilesOperation(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public OrphanFileRemoval olderThan(Duration window) {
    InvalidArgumentException.requireNonNull(window, "remove orphan files", "window");
    if (window.isNegative()) {
      throw new InvalidArgumentException("Cannot remove orphan files: safety window is negative: " + window);
    }
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
      throw new InvalidStateException("Cannot execute orphan file removal of table " + handle.id() + ": already executed");
    }
    if (!unsafe && window.compareTo(MINIMUM_SAFETY_WINDOW) < 0) {
      throw new InvalidArgumentException("Cannot remove orphan files: safety window is below the minimum of "
          + MINIMUM_SAFETY_WINDOW + " (call unsafe() if no writer is running): " + window);
    }
    used = true;
    FileIO io = handle.io();
    SupportsPrefixOperations listing = PrefixOperations.of(io).orElseThrow(() -> new InvalidStateException(
        "Cannot remove orphan files: the FileIO cannot list files: " + io.getClass().getName()));
    return handle.translating("remove orphan files of table " + handle.id(), () -> {
      Table table = handle.refreshed();
      long now = handle.config().clock().millis();
      long cutoff = now - window.toMillis();
      Set<String> referenced = ReachableFiles.of(table);
      String prefix = table.location().endsWith("/") ? table.location() : table.location() + "/";
      List<OrphanFile> orphans = new ArrayList<>();
      long scanned = 0;
      for (FileInfo file : listing.listPrefix(prefix)) {
        scanned++;
        if (referenced.contains(ReachableFiles.normalize(file.location())) || file.createdAtMillis() >= cutoff) {
          continue;
        }
        orphans.add(new OrphanFile(file.location(), file.size(), Duration.ofMillis(now - file.createdAtMillis())));
      }
      Optional<String> coldPrefix = io instanceof TieredFileIO tiered ? tiered.coldLocation(table.location())
          : Optional.empty();
      if (coldPrefix.isPresent()) {
        TieredFileIO tiered = (TieredFileIO) io;
        String cold = coldPrefix.get().endsWith("/") ? coldPrefix.get() : coldPrefix.get() + "/";
        for (FileInfo file : tiered.listPrefix(cold)) {
          scanned++;
          if (referenced.contains(file.location())
              || tiered.hotLocation(file.location()).filter(referenced::contains).isPresent()
              || file.createdAtMillis() >= cutoff) {
            continue;
          }
          orphans.add(new OrphanFile(file.location(), file.size(), Duration.ofMillis(now - file.createdAtMillis())));
        }
      }
      orphans.sort(Comparator.comparing(OrphanFile::location));
      if (delete) {
        for (OrphanFile orphan : orphans) {
          io.deleteFile(orphan.location());
        }
        LOG.info("Removed {} orphan files ({} bytes) of table {}", orphans.size(),
            orphans.stream().mapToLong(OrphanFile::sizeBytes).sum(), handle.id());
        handle.record("remove_orphan_files", null, java.util.Map.of("deleted_files", orphans.size(),
            "bytes", orphans.stream().mapToLong(OrphanFile::sizeBytes).sum(), "scanned_files", scanned));
      }
      return new OrphanFilesResult(orphans, delete, scanned, referenced.size());
    });
  }
}
