package dev.featurestore.core.catalog;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place every commit of the store's own catalogs goes through (ingest, schema change,
 * rollback, expiry, compaction, create): the catalog's table operations, forwarded, and after a
 * commit that landed the {@link VersionHint} written beside the new metadata. A hint that cannot
 * be written is a warning, never a failed commit: the commit already happened.
 */
final class HintingTableOperations implements TableOperations {
  private static final Logger LOG = LoggerFactory.getLogger(HintingTableOperations.class);

  private final TableOperations delegate;
  private final String name;

  HintingTableOperations(TableOperations delegate, String name) {
    this.delegate = delegate;
    this.name = name;
  }

  @Override
  public TableMetadata current() {
    return delegate.current();
  }

  @Override
  public TableMetadata refresh() {
    return delegate.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    delegate.commit(base, metadata);
    try {
      // the committed metadata with its file location (a refresh: it may already be newer)
      VersionHint.write(delegate.io(), delegate.current());
    } catch (RuntimeException e) {
      LOG.warn("Cannot write version hint of table {} (the commit landed; path-based readers may see an older version): {}",
          name, e.toString());
    }
  }

  @Override
  public FileIO io() {
    return delegate.io();
  }

  @Override
  public EncryptionManager encryption() {
    return delegate.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return delegate.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return delegate.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    TableOperations temp = delegate.temp(uncommittedMetadata);
    return temp == delegate ? this : new HintingTableOperations(temp, name);
  }

  @Override
  public long newSnapshotId() {
    return delegate.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return delegate.requireStrictCleanup();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
