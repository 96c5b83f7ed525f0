package dev.featurestore.core;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.core.base.TableCoordination;
import dev.featurestore.core.base.TableHandle;

import dev.featurestore.BloomFilterUpdate;
import dev.featurestore.DataFileBloomFilters;
import dev.featurestore.FeatureTable;
import dev.featurestore.PartitionEvolution;
import dev.featurestore.PointLookup;
import dev.featurestore.PruningReport;
import dev.featurestore.RowDeletion;
import dev.featurestore.Ingest;
import dev.featurestore.SchemaEvolution;
import dev.featurestore.SnapshotManager;
import dev.featurestore.TableId;
import dev.featurestore.TableMaintenance;
import dev.featurestore.TableStats;
import dev.featurestore.Tiering;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.ingest.IngestOperation;
import dev.featurestore.MetadataTable;
import dev.featurestore.QueryResult;
import dev.featurestore.core.inspect.MetadataTables;
import dev.featurestore.core.bloom.BloomFilters;
import dev.featurestore.core.lookup.Lookups;
import dev.featurestore.core.maintenance.Maintenance;
import dev.featurestore.core.partition.Partitioning;
import dev.featurestore.core.query.Pruning;
import dev.featurestore.core.query.TableQuery;
import dev.featurestore.core.schema.SchemaChange;
import dev.featurestore.core.snapshot.Snapshots;
import dev.featurestore.core.stats.TableStatistics;
import dev.featurestore.core.tiering.Tierings;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.HasTableOperations;

/** A table of the store: a thin facade that hands each concern to its own package. */
final class DefaultFeatureTable implements FeatureTable {
  private final TableHandle handle;
  private final java.util.Set<dev.featurestore.BackgroundMaintenance> background;

  /** {@code background}: the store's running background maintenance, closed with the store. */
  DefaultFeatureTable(TableHandle handle, java.util.Set<dev.featurestore.BackgroundMaintenance> background) {
    this.handle = handle;
    this.background = background;
  }

  TableHandle handle() {
    return handle;
  }

  @Override
  public TableId id() {
    return handle.id();
  }

  @Override
  public Schema schema() {
    return handle.table().schema();
  }

  @Override
  public PartitionSpec spec() {
    return handle.table().spec();
  }

  @Override
  public Map<String, String> properties() {
    return Map.copyOf(handle.table().properties());
  }

  @Override
  public String location() {
    return handle.table().location();
  }

  @Override
  public int formatVersion() {
    Table table = handle.table();
    if (table instanceof HasTableOperations ops) {
      TableOperations operations = ops.operations();
      return operations.current().formatVersion();
    }
    return Integer.parseInt(table.properties().getOrDefault("format-version", "2"));
  }

  @Override
  public Ingest ingest() {
    handle.checkWritable("ingest into table " + handle.id());
    return new IngestOperation(handle);
  }

  @Override
  public SchemaEvolution evolveSchema() {
    handle.checkWritable("evolve schema of table " + handle.id());
    return new SchemaChange(handle);
  }

  @Override
  public SnapshotManager snapshots() {
    return new Snapshots(handle);
  }

  @Override
  public TimeTravelQuery query() {
    return TableQuery.of(handle);
  }

  @Override
  public TableMaintenance maintenance() {
    handle.checkWritable("maintain table " + handle.id());
    return new Maintenance(handle, background);
  }

  @Override
  public TableStats stats() {
    return TableStatistics.compute(handle);
  }

  @Override
  public PartitionEvolution evolvePartitionSpec() {
    handle.checkWritable("evolve partition spec of table " + handle.id());
    return Partitioning.evolve(handle);
  }

  @Override
  public String partitionPath(Map<String, ?> row) {
    return Partitioning.partitionPath(handle, row);
  }

  @Override
  public String partitionPathOf(List<?> partitionValues) {
    return Partitioning.partitionPathOf(handle, partitionValues);
  }

  @Override
  public PruningReport explainPruning(Expression filter) {
    return Pruning.explain(handle, filter, OptionalLong.empty());
  }

  @Override
  public PruningReport explainPruning(Expression filter, long snapshotId) {
    return Pruning.explain(handle, filter, OptionalLong.of(snapshotId));
  }

  @Override
  public PruningReport explainPruning(Expression filter, List<String> dataFiles) {
    return Pruning.explain(handle, filter, dataFiles);
  }

  @Override
  public DataFileBloomFilters readBloomFilters(String dataFile) {
    return BloomFilters.readAll(handle, dataFile);
  }

  @Override
  public BloomFilterUpdate updateBloomFilters() {
    handle.checkWritable("update bloom filters of table " + handle.id());
    return BloomFilters.update(handle);
  }

  @Override
  public PointLookup lookup(String keyColumn) {
    return Lookups.of(handle, keyColumn);
  }

  @Override
  public RowDeletion deleteRows() {
    return new RowDeletionOperation(handle);
  }

  @Override
  public Tiering tiering() {
    handle.checkWritable("tier table " + handle.id());
    return Tierings.of(handle);
  }

  @Override
  public QueryResult metadata(MetadataTable metadataTable) {
    return MetadataTables.read(handle, metadataTable);
  }

  @Override
  public boolean isReadOnly() {
    return handle.readOnly();
  }

  @Override
  public void refresh() {
    handle.translating("refresh table " + handle.id(), handle::refreshed);
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    InvalidArgumentException.requireNonNull(type, "unwrap table", "type");
    if (type.isInstance(handle.table())) {
      return type.cast(handle.table());
    }
    if (type.isInstance(handle.io())) {
      return type.cast(handle.io());
    }
    if (type == TableCoordination.class) { // internal: the CDC writer's commit lock and compactions' row moves
      return type.cast(handle.coordination());
    }
    throw new InvalidArgumentException("Cannot unwrap table " + handle.id() + ": no object of type: " + type.getName());
  }

  @Override
  public String toString() {
    return "FeatureTable{" + handle.id() + (handle.readOnly() ? ", read-only" : "") + "}";
  }
}
