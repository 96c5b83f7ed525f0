package dev.featurestore.core.catalog;

import static java.util.Objects.requireNonNull;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.core.storage.PrefixOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creating a table whose location may already hold metadata files although the catalog has no
 * row for it. A create writes its first metadata file and then inserts the catalog row; a process
 * killed in between leaves the file (complete, or at 0 bytes if it died while writing it) and no
 * row. What the folder holds decides:
 *
 * <ul>
 *   <li>only files that are not table metadata (0 bytes, half written): the create starts over,
 *       and once its catalog row is in, deletes them;
 *   <li>besides those, only first-version files of an empty table with the same definition
 *       (schema, partition spec, sort order, format version, the requested properties, location):
 *       an interrupted create of this very table, or a dropped empty one. The create completes it
 *       by registering the newest such file, and then deletes the others;
 *   <li>anything else (a table with snapshots or history, or another definition): refused with
 *       {@link AlreadyExistsException}, as two tables writing into one metadata folder would
 *       interleave and recovery would pick the wrong one.
 * </ul>
 *
 * <p>Nothing is deleted before the catalog row is in: until then a listed file may belong to a
 * create running in another process right now, and after it every other create of this table
 * fails at its own insert, so none of their files can become the table's. A create that loses
 * such a race reports the table as existing; the store's own catalogs delete the first metadata
 * file it wrote, and only that one ({@link HintingTableOperations}): another first metadata file
 * in the folder may be the table's again after a drop and a new create.
 */
public final class TableCreation {
  private static final Logger LOG = LoggerFactory.getLogger(TableCreation.class);

  private TableCreation() {}

  /**
   * A table to create.
   *
   * @param name the table's name for messages
   * @param location the explicit location, or empty for the catalog's default
   * @param expectedLocation where the table's files will be, if known (explicit or the catalog's
   *     default layout); without it the metadata folder is not checked
   */
  public record NewTable(TableIdentifier ident, String name, Schema schema, PartitionSpec spec, SortOrder sortOrder,
      Map<String, String> properties, Optional<String> location, Optional<String> expectedLocation) {
    public NewTable {
      requireNonNull(ident, "ident is null");
      requireNonNull(name, "name is null");
      requireNonNull(schema, "schema is null");
      requireNonNull(spec, "spec is null");
      requireNonNull(sortOrder, "sortOrder is null");
      properties = Map.copyOf(properties);
      requireNonNull(location, "location is null");
      expectedLocation = expectedLocation.map(TableCreation::stripSlash);
    }
  }

  /**
   * Creates the table, completing or starting over an interrupted create at its location.
   *
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException if the catalog has the table
   *     (also when another process created it at the same moment)
   * @throws AlreadyExistsException if the location holds metadata of another table
   */
  public static Table create(Catalog catalog, FileIO io, NewTable table) {
    Optional<SupportsPrefixOperations> prefixes = PrefixOperations.of(io);
    if (table.expectedLocation().isEmpty() || prefixes.isEmpty() || catalog.tableExists(table.ident())) {
      return build(catalog, table);
    }
    return createChecked(catalog, io, prefixes.get(), table, table.expectedLocation().get() + "/metadata/");
  }

  private static Table createChecked(Catalog catalog, FileIO io, SupportsPrefixOperations listing, NewTable table,
      String metadataFolder) {
    List<String> files = MetadataFiles.list(listing, metadataFolder);
    if (files.isEmpty()) {
      return build(catalog, table);
    }
    TableMetadata expected = TableMetadata.newTableMetadata(
        table.schema(), table.spec(), table.sortOrder(), table.expectedLocation().get(), table.properties());
    List<String> unreadable = new ArrayList<>();
    List<MetadataFiles.Readable> interrupted = new ArrayList<>();
    for (String file : files) {
      OptionalLong version = MetadataFiles.version(MetadataFiles.fileName(file));
      Optional<TableMetadata> metadata = version.isEmpty() ? Optional.empty() : MetadataFiles.read(io, file);
      if (version.isPresent() && metadata.isEmpty()) {
        unreadable.add(file);
      } else if (metadata.isPresent() && isNewTable(metadata.get(), expected)) {
        interrupted.add(new MetadataFiles.Readable(file, version.getAsLong(), metadata.get()));
      } else {
        if (catalog.tableExists(table.ident())) { // created by another process since the check above
          throw new org.apache.iceberg.exceptions.AlreadyExistsException("Table already exists: %s", table.ident());
        }
        throw new AlreadyExistsException("Cannot create table " + table.name()
            + ": its location already holds table metadata (a table dropped without purge, or a lost catalog):"
            + " register it again with recoverCatalog(), or delete it: " + metadataFolder);
      }
    }
    Table created;
    String kept = null;
    if (interrupted.isEmpty()) {
      created = build(catalog, table);
      LOG.warn("Created table {} over an interrupted create; deleting its unreadable metadata files: {}", table.name(), unreadable);
    } else {
      interrupted.sort(MetadataFiles.NEWEST_FIRST);
      kept = interrupted.get(0).location();
      created = catalog.registerTable(table.ident(), kept);
      LOG.warn("Completed an interrupted create of table {}: registered {}", table.name(), kept);
    }
    for (String file : files) {
      if (!file.equals(kept)) {
        deleteQuietly(io, file);
      }
    }
    return created;
  }

  private static Table build(Catalog catalog, NewTable table) {
    Catalog.TableBuilder builder = catalog.buildTable(table.ident(), table.schema())
        .withPartitionSpec(table.spec())
        .withSortOrder(table.sortOrder())
        .withProperties(table.properties());
    table.location().ifPresent(builder::withLocation);
    return builder.create();
  }

  /**
   * True if {@code existing} is what creating {@code expected} writes: a first version (no
   * snapshot, ref or earlier file) of the same definition. Properties the catalog adds on its own
   * (its table defaults) may be there as well.
   */
  private static boolean isNewTable(TableMetadata existing, TableMetadata expected) {
    if (!existing.snapshots().isEmpty() || !existing.refs().isEmpty() || !existing.previousFiles().isEmpty()) {
      return false;
    }
    for (Map.Entry<String, String> property : expected.properties().entrySet()) {
      if (!property.getValue().equals(existing.properties().get(property.getKey()))) {
        return false;
      }
    }
    return existing.formatVersion() == expected.formatVersion()
        && existing.schema().sameSchema(expected.schema())
        && existing.spec().equals(expected.spec())
        && existing.sortOrder().sameOrder(expected.sortOrder())
        && Objects.equals(stripSlash(existing.location()), stripSlash(expected.location()));
  }

  private static void deleteQuietly(FileIO io, String file) {
    try {
      io.deleteFile(file);
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete metadata file of an interrupted create: {}: {}", file, e.toString());
    }
  }

  private static String stripSlash(String location) {
    String stripped = location;
    while (stripped.endsWith("/")) {
      stripped = stripped.substring(0, stripped.length() - 1);
    }
    return stripped;
  }
}
