package dev.featurestore.core.catalog;

import dev.featurestore.core.storage.PrefixOperations;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place every commit of the store's own catalogs goes through (ingest, schema change,
 * rollback, expiry, compaction, create): the catalog's table operations, forwarded, and after a
 * commit that landed the {@link VersionHint} written beside the new metadata. A hint that cannot
 * be written is a warning, never a failed commit: the commit already happened.
 */
final class HintingTableOperations extends ForwardingTableOperations {
  private static final Logger LOG = LoggerFactory.getLogger(HintingTableOperations.class);

  private final String name;

  HintingTableOperations(TableOperations delegate, String name) {
    super(delegate);
    this.name = name;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    TableOperations delegate = delegate();
    MetadataWriteRecorder.forget();
    try {
      delegate.commit(base, metadata);
    } catch (CommitFailedException | AlreadyExistsException e) {
      String attempted = MetadataWriteRecorder.takeWritten();
      if (base == null) {
        deleteLostCreate(attempted, metadata);
      } else {
        deleteLosingAttempt(base);
      }
      throw e;
    } catch (RuntimeException | Error e) {
      MetadataWriteRecorder.forget();
      throw e;
    }
    String written = MetadataWriteRecorder.takeWritten();
    if (base != null && written != null) {
      // the commit's compare-and-swap put exactly this file in the catalog: its metadata is known
      // (a refresh now could find the same or, after another writer, newer; both are current)
      CommittedMetadata.install(delegate, written, CommittedMetadata.at(metadata, written));
    }
    try {
      // the committed metadata with its file location (installed above, else a refresh, which
      // may already find a newer one)
      VersionHint.write(io(), delegate.current());
    } catch (RuntimeException e) {
      LOG.warn("Cannot write version hint of table {} (the commit landed; path-based readers may see an older version): {}",
          name, e.toString());
    }
  }

  /**
   * After a create that certainly failed (the catalog already had the table, or its insert failed
   * on the table's row; Iceberg reports both as the table existing): deletes the first metadata file
   * this very create wrote, and no other. The folder may hold other first metadata files at that
   * moment, such as the one of a table another process dropped and created again since, so whose a
   * file is cannot be told by its table uuid alone. The file is kept when the table in the catalog
   * now is that file's table (its uuid): another process's create found it complete before this
   * create's insert and registered it as an interrupted create ({@link TableCreation}); and when
   * the catalog has no table any more (dropped since), as a create may be registering it right now.
   * A registration wrote no file ({@code attempted} is null) and the file it registered is left
   * alone. A file kept or not deleted is left to orphan removal.
   */
  private void deleteLostCreate(String attempted, TableMetadata metadata) {
    if (attempted == null || attempted.equals(metadata.metadataFileLocation())) {
      return;
    }
    try {
      TableMetadata winner = delegate().refresh();
      if (winner == null || winner.uuid().equals(metadata.uuid())) {
        LOG.debug("Kept metadata file {} of a lost create of table {}: {}", attempted, name,
            winner == null ? "the table was dropped since" : "the table that won is this file's");
        return;
      }
      io().deleteFile(attempted);
      LOG.debug("Deleted metadata file {} of a create of table {} that lost to another", attempted, name);
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete the metadata file of a lost create of table {} (orphan removal will): {}: {}", name,
          attempted, e.toString());
    }
  }

  /**
   * After a commit that certainly failed (another commit landed first; Iceberg retries from the new
   * version): deletes the metadata file the failed attempt wrote, which the catalog's table
   * operations leave behind. Without this a stream whose commits race background maintenance left
   * one stray {@code metadata.json} per lost race, which no metadata log bounds and which catalog
   * recovery would have to choose between. The attempt wrote version {@code N = base + 1}; a file
   * of version N is deleted only once the winner of N is known (the current metadata or in its
   * log) and the file is not that winner: every other file of version N was written on top of an
   * older version than the current one, so its compare-and-swap fails (or failed). A failure to
   * clean up is logged and leaves the file to orphan removal.
   */
  private void deleteLosingAttempt(TableMetadata base) {
    TableOperations delegate = delegate();
    Optional<SupportsPrefixOperations> prefixes = PrefixOperations.of(io());
    if (base == null || base.metadataFileLocation() == null || prefixes.isEmpty()) {
      return;
    }
    SupportsPrefixOperations listing = prefixes.get();
    try {
      String baseLocation = base.metadataFileLocation();
      long attempt = MetadataFiles.version(MetadataFiles.fileName(baseLocation)).orElse(-2) + 1;
      if (attempt < 0) {
        return;
      }
      TableMetadata now = delegate.refresh();
      Set<String> history = new HashSet<>();
      history.add(now.metadataFileLocation());
      now.previousFiles().forEach(entry -> history.add(entry.file()));
      boolean winnerKnown = history.stream()
          .anyMatch(f -> MetadataFiles.version(MetadataFiles.fileName(f)).orElse(-1) == attempt);
      if (!winnerKnown) {
        return;
      }
      String folder = baseLocation.substring(0, baseLocation.lastIndexOf('/') + 1);
      for (String file : MetadataFiles.list(listing, folder)) {
        if (MetadataFiles.version(MetadataFiles.fileName(file)).orElse(-1) == attempt && !history.contains(file)) {
          io().deleteFile(file);
          LOG.debug("Deleted metadata file {} of a commit of table {} that lost to another", file, name);
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("Cannot delete the metadata file of a failed commit of table {} (orphan removal will): {}", name,
          e.toString());
    }
  }

  /** The store's FileIO (the catalog's operations write through a {@link MetadataWriteRecorder} around it). */
  @Override
  public FileIO io() {
    return MetadataWriteRecorder.unwrap(delegate().io());
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    TableOperations temp = delegate().temp(uncommittedMetadata);
    return temp == delegate() ? this : new HintingTableOperations(temp, name);
  }
}
