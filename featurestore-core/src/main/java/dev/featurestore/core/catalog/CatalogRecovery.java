package dev.featurestore.core.catalog;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.InvalidStateException;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.PrefixOperations;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds a catalog from the warehouse: the latest {@code metadata.json} of every table is in
 * the warehouse, so losing the catalog loses no table. Tables are found at the catalog's default
 * layout, {@code <warehouse>/<namespace levels>/<table>/metadata/NNNNN-<uuid>.metadata.json}, and
 * registered with the highest version number that is readable: a file left empty or half written
 * by a killed process is skipped and named in the result.
 *
 * <pre>{@code
 * CatalogRecoveryResult result = CatalogRecovery.recover(catalog, io, "/data/store/warehouse");
 * }</pre>
 */
public final class CatalogRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogRecovery.class);

  private CatalogRecovery() {}

  /**
   * Registers every table found under {@code warehouse} that {@code catalog} does not know, each
   * with its newest readable metadata file. Files that are not table metadata (0 bytes, half
   * written) are skipped and named in the result; a failure to read a file stops the recovery.
   */
  public static CatalogRecoveryResult recover(Catalog catalog, FileIO io, String warehouse) {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(io, "io is null");
    requireNonNull(warehouse, "warehouse is null");
    SupportsPrefixOperations listing = PrefixOperations.of(io).orElseThrow(() -> new InvalidStateException(
        "Cannot recover catalog: the FileIO cannot list files: " + io.getClass().getName()));
    String prefix = warehouse.endsWith("/") ? warehouse : warehouse + "/";
    Map<TableIdentifier, TreeMap<Long, List<String>>> found = new TreeMap<>(Comparator.comparing(TableIdentifier::toString));
    for (FileInfo file : listing.listPrefix(prefix)) {
      String location = file.location();
      int start = location.indexOf(prefix);
      String relative = start < 0 ? null : location.substring(start + prefix.length());
      if (relative == null) {
        continue;
      }
      String[] parts = relative.split("/");
      if (parts.length < 4 || !parts[parts.length - 2].equals("metadata")) {
        continue;
      }
      OptionalLong version = MetadataFiles.version(parts[parts.length - 1]);
      if (version.isEmpty()) {
        continue;
      }
      String[] levels = Arrays.copyOfRange(parts, 0, parts.length - 3);
      TableIdentifier ident = TableIdentifier.of(Namespace.of(levels), parts[parts.length - 3]);
      found.computeIfAbsent(ident, k -> new TreeMap<>(Comparator.reverseOrder()))
          .computeIfAbsent(version.getAsLong(), k -> new ArrayList<>()).add(location);
    }
    List<TableId> registered = new ArrayList<>();
    List<TableId> present = new ArrayList<>();
    List<String> locations = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    for (Map.Entry<TableIdentifier, TreeMap<Long, List<String>>> entry : found.entrySet()) {
      TableIdentifier ident = entry.getKey();
      TableId id = TableId.of(String.join(".", ident.namespace().levels()), ident.name());
      if (catalog.tableExists(ident)) {
        present.add(id);
        continue;
      }
      Optional<String> newest = newestReadable(io, entry.getValue(), unreadable);
      if (newest.isEmpty()) {
        LOG.warn("Cannot recover table {}: none of its metadata files is readable", id);
        continue;
      }
      Namespaces.ensure(catalog, ident.namespace());
      try {
        catalog.registerTable(ident, newest.get());
      } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
        present.add(id); // registered concurrently
        continue;
      }
      LOG.info("Recovered table {} from {}", id, newest.get());
      registered.add(id);
      locations.add(newest.get());
    }
    unreadable.sort(Comparator.naturalOrder());
    present.sort(Comparator.comparing(TableId::toString));
    return new CatalogRecoveryResult(registered, present, locations, unreadable);
  }

  /**
   * The newest metadata file that parses, trying versions from the highest down; the files tried
   * and skipped are added to {@code unreadable}. Several files of one version (a create that lost
   * a race, or was interrupted and started over) are told apart by their update time.
   */
  private static Optional<String> newestReadable(FileIO io, TreeMap<Long, List<String>> byVersion, List<String> unreadable) {
    for (Map.Entry<Long, List<String>> version : byVersion.entrySet()) {
      List<MetadataFiles.Readable> readable = new ArrayList<>();
      for (String location : version.getValue()) {
        Optional<TableMetadata> metadata = MetadataFiles.read(io, location);
        if (metadata.isPresent()) {
          readable.add(new MetadataFiles.Readable(location, version.getKey(), metadata.get()));
        } else {
          LOG.warn("Skipping unreadable metadata file (empty or not table metadata): {}", location);
          unreadable.add(location);
        }
      }
      if (!readable.isEmpty()) {
        readable.sort(MetadataFiles.NEWEST_FIRST);
        return Optional.of(readable.get(0).location());
      }
    }
    return Optional.empty();
  }
}
