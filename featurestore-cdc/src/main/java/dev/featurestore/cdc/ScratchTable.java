package dev.featurestore.cdc;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;

/**
 * A throw-away table in memory with a target table's schema, spec, sort order, properties and
 * format version, for warming up the commit path ({@link ChangeLogWriter#warmUp()}): commits to it
 * run Iceberg's snapshot, manifest and metadata code as a real commit does, and write nothing
 * outside this object (its own FileIO holds the files; no catalog, no global state).
 */
final class ScratchTable {
  private ScratchTable() {}

  /** A new empty table shaped like {@code like}. */
  static Table like(Table like) {
    int formatVersion = like instanceof HasTableOperations ops ? ops.operations().current().formatVersion() : 2;
    Map<String, String> properties = new HashMap<>(like.properties());
    properties.put(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion));
    // local-looking, so the commit phases run as they do for a table on local disk; nothing is written there
    String location = like.location().startsWith("/") || like.location().startsWith("file:")
        ? "file:/featurestore-cdc-warm-up" : "memory://featurestore-cdc-warm-up";
    TableMetadata metadata = TableMetadata.newTableMetadata(like.schema(), like.spec(), like.sortOrder(), location, properties);
    return new BaseTable(new Ops(metadata), "featurestore-cdc-warm-up");
  }

  private static final class Ops implements TableOperations {
    private final Map<String, InMemoryOutputFile> files = new ConcurrentHashMap<>();
    private final FileIO io = new FileIO() {
      @Override
      public InputFile newInputFile(String location) {
        InMemoryOutputFile file = files.get(location);
        if (file == null) {
          throw new NotFoundException("Cannot read warm-up file: not written: %s", location);
        }
        return file.toInputFile();
      }

      @Override
      public OutputFile newOutputFile(String location) {
        InMemoryOutputFile file = new InMemoryOutputFile(location);
        files.put(location, file);
        return file;
      }

      @Override
      public void deleteFile(String location) {
        files.remove(location);
      }
    };
    private TableMetadata current;
    private int version;

    Ops(TableMetadata metadata) {
      this.current = metadata;
    }

    @Override
    public TableMetadata current() {
      return current;
    }

    @Override
    public TableMetadata refresh() {
      return current;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (base != current) {
        throw new CommitFailedException("Cannot commit warm-up table: stale base");
      }
      String location = metadataFileLocation("v" + (++version) + ".metadata.json");
      TableMetadataParser.toJson(metadata); // what a catalog writes
      current = TableMetadata.buildFrom(metadata).discardChanges().withMetadataLocation(location).build();
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return current.location() + "/metadata/" + fileName;
    }

    @Override
    public LocationProvider locationProvider() {
      return LocationProviders.locationsFor(current.location(), current.properties());
    }
  }
}
