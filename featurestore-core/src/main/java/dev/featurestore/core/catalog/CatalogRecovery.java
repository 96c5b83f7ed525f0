package dev.featurestore.core.catalog;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CatalogRecoveryResult;
import dev.featurestore.TableId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
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
 * registered with the highest version number.
 *
 * <pre>{@code
 * CatalogRecoveryResult result = CatalogRecovery.recover(catalog, io, "/data/store/warehouse");
 * }</pre>
 */
public final class CatalogRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogRecovery.class);
  private static final Pattern METADATA_FILE = Pattern.compile("(\\d+)-[0-9a-fA-F-]+(\\.gz)?\\.metadata\\.json");

  private CatalogRecovery() {}

  /** Registers every table found under {@code warehouse} that {@code catalog} does not know. */
  public static CatalogRecoveryResult recover(Catalog catalog, FileIO io, String warehouse) {
    requireNonNull(catalog, "catalog is null");
    requireNonNull(io, "io is null");
    requireNonNull(warehouse, "warehouse is null");
    if (!(io instanceof SupportsPrefixOperations listing)) {
      throw new UnsupportedOperationException(
          "Cannot recover catalog: the FileIO cannot list files: " + io.getClass().getName());
    }
    String prefix = warehouse.endsWith("/") ? warehouse : warehouse + "/";
    Map<TableIdentifier, Latest> latest = new TreeMap<>(Comparator.comparing(TableIdentifier::toString));
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
      Matcher m = METADATA_FILE.matcher(parts[parts.length - 1]);
      if (!m.matches()) {
        continue;
      }
      String[] levels = java.util.Arrays.copyOfRange(parts, 0, parts.length - 3);
      TableIdentifier ident = TableIdentifier.of(Namespace.of(levels), parts[parts.length - 3]);
      long version = Long.parseLong(m.group(1));
      latest.merge(ident, new Latest(version, location), (a, b) -> a.version() >= b.version() ? a : b);
    }
    List<TableId> registered = new ArrayList<>();
    List<TableId> present = new ArrayList<>();
    List<String> locations = new ArrayList<>();
    for (Map.Entry<TableIdentifier, Latest> entry : latest.entrySet()) {
      TableIdentifier ident = entry.getKey();
      TableId id = TableId.of(String.join(".", ident.namespace().levels()), ident.name());
      if (catalog.tableExists(ident)) {
        present.add(id);
        continue;
      }
      if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(ident.namespace())) {
        try {
          namespaces.createNamespace(ident.namespace(), Map.of());
        } catch (org.apache.iceberg.exceptions.AlreadyExistsException e) {
          // created concurrently
        }
      }
      catalog.registerTable(ident, entry.getValue().location());
      LOG.info("Recovered table {} from {}", id, entry.getValue().location());
      registered.add(id);
      locations.add(entry.getValue().location());
    }
    return new CatalogRecoveryResult(registered, present, locations);
  }

  private record Latest(long version, String location) {}
}
