package dev.featurestore;


import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;

/**
 * What a new table looks like: id, schema, partition spec, sort order, properties and format
 * version. Field ids in the schema are reassigned by Iceberg when the table is created.
 *
 * <pre>{@code
 * TableDefinition def = TableDefinition.builder("features.feature_events", schema)
 *     .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
 *     .property("write.parquet.compression-codec", "zstd")
 *     .build();
 * }</pre>
 */
public final class TableDefinition {
  /** Iceberg's {@code write.metadata.metrics.column.} prefix: uuid columns get {@code counts}. */
  public static final String UUID_METRICS_PREFIX = "write.metadata.metrics.column.";
  private final TableId id;
  private final Schema schema;
  private final Function<Schema, PartitionSpec> partitionSpec;
  private final Function<Schema, SortOrder> sortOrder;
  private final Map<String, String> properties;
  private final Integer formatVersion;
  private final String location;

  private TableDefinition(Builder builder) {
    this.id = builder.id;
    this.schema = builder.schema;
    this.partitionSpec = builder.partitionSpec;
    this.sortOrder = builder.sortOrder;
    Map<String, String> props = new LinkedHashMap<>(builder.properties);
    // Iceberg 1.12 compares uuid bounds signed, Parquet writes them unsigned (apache/iceberg#14216):
    // without bounds no engine can prune a uuid filter wrongly
    org.apache.iceberg.types.TypeUtil.indexByName(builder.schema.asStruct()).forEach((name, fieldId) -> {
      if (builder.schema.findType(fieldId).typeId() == org.apache.iceberg.types.Type.TypeID.UUID) {
        props.putIfAbsent(UUID_METRICS_PREFIX + name, "counts");
      }
    });
    this.properties = Collections.unmodifiableMap(props);
    this.formatVersion = builder.formatVersion;
    this.location = builder.location;
  }

  public static Builder builder(TableId id, Schema schema) {
    return new Builder(id, schema);
  }

  public static Builder builder(String qualifiedName, Schema schema) {
    return new Builder(TableId.parse(qualifiedName), schema);
  }

  public Builder toBuilder() {
    Builder builder = new Builder(id, schema);
    builder.partitionSpec = partitionSpec;
    builder.sortOrder = sortOrder;
    builder.properties.putAll(properties);
    builder.formatVersion = formatVersion;
    builder.location = location;
    return builder;
  }

  public TableId id() {
    return id;
  }

  public Schema schema() {
    return schema;
  }

  /** The partition spec bound to this definition's schema (unpartitioned if none was set). */
  public PartitionSpec partitionSpec() {
    return partitionSpec == null ? PartitionSpec.unpartitioned() : partitionSpec.apply(schema);
  }

  /** The sort order bound to this definition's schema (unsorted if none was set). */
  public SortOrder sortOrder() {
    return sortOrder == null ? SortOrder.unsorted() : sortOrder.apply(schema);
  }

  public Map<String, String> properties() {
    return properties;
  }

  /** The format version, if set; otherwise the store's default. */
  public Optional<Integer> formatVersion() {
    return Optional.ofNullable(formatVersion);
  }

  /** An explicit table location, if set; otherwise the catalog chooses one in the warehouse. */
  public Optional<String> location() {
    return Optional.ofNullable(location);
  }

  /** Builds a {@link TableDefinition}. Not thread-safe. */
  public static final class Builder {
    private final TableId id;
    private final Schema schema;
    private Function<Schema, PartitionSpec> partitionSpec;
    private Function<Schema, SortOrder> sortOrder;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private Integer formatVersion;
    private String location;

    private Builder(TableId id, Schema schema) {
      this.id = InvalidArgumentException.requireNonNull(id, "define table", "id");
      this.schema = InvalidArgumentException.requireNonNull(schema, "define table", "schema");
      InvalidArgumentException.check(!schema.columns().isEmpty(), "Cannot define table: schema has no columns: %s", id);
      ColumnNames.checkSchema(schema, "define table " + id);
    }

    /** Partition spec, built against the definition's schema. */
    public Builder partitionBy(Function<Schema, PartitionSpec> spec) {
      this.partitionSpec = InvalidArgumentException.requireNonNull(spec, "define table", "spec");
      return this;
    }

    /** A partition spec already bound to this definition's schema. */
    public Builder partitionSpec(PartitionSpec spec) {
      InvalidArgumentException.requireNonNull(spec, "define table", "spec");
      return partitionBy(ignored -> spec);
    }

    /** Sort order, built against the definition's schema. */
    public Builder sortBy(Function<Schema, SortOrder> order) {
      this.sortOrder = InvalidArgumentException.requireNonNull(order, "define table", "order");
      return this;
    }

    /**
     * Writes a Parquet bloom filter for {@code column} in every row group, sized for {@code ndv}
     * distinct values per row group at a 1% false-positive rate. Change it later with {@link
     * FeatureTable#updateBloomFilters()}.
     *
     * @throws InvalidArgumentException if the column is unknown or not primitive, or {@code ndv <= 0}
     */
    public Builder bloomFilter(String column, long ndv) {
      return bloomFilter(column, ndv, BloomFilterColumn.DEFAULT_FPP);
    }

    /** As {@link #bloomFilter(String, long)} with a false-positive rate in (0, 1). */
    public Builder bloomFilter(String column, long ndv, double fpp) {
      InvalidArgumentException.requireNonNull(column, "define table", "column");
      BloomFilterColumn.check(schema, column, ndv, fpp);
      properties.put(BloomFilterColumn.ENABLED_PREFIX + column, "true");
      properties.put(BloomFilterColumn.NDV_PREFIX + column, Long.toString(ndv));
      properties.put(BloomFilterColumn.FPP_PREFIX + column, Double.toString(fpp));
      return this;
    }

    public Builder property(String key, String value) {
      InvalidArgumentException.requireNonNull(key, "define table", "key");
      InvalidArgumentException.requireNonNull(value, "define table", "value");
      properties.put(key, value);
      return this;
    }

    public Builder properties(Map<String, String> props) {
      InvalidArgumentException.requireNonNull(props, "define table", "props");
      props.forEach(this::property);
      return this;
    }

    /** Iceberg format version: 2 or 3. */
    public Builder formatVersion(int version) {
      InvalidArgumentException.check(version == 2 || version == 3, "Cannot set format version: expected 2 or 3: %s", version);
      this.formatVersion = version;
      return this;
    }

    public Builder location(String location) {
      this.location = InvalidArgumentException.requireNonNull(location, "define table", "location");
      return this;
    }

    public TableDefinition build() {
      return new TableDefinition(this);
    }
  }
}
