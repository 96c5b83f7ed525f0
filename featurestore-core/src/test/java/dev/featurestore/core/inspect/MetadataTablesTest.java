package dev.featurestore.core.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureTable;
import dev.featurestore.MetadataTable;
import dev.featurestore.QueryResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.query.TestTables;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The metadata tables against Iceberg's own ({@link MetadataTableUtils#createMetadataTableInstance},
 * scanned here): same schema, same rows, same values, column by column.
 */
class MetadataTablesTest extends LocalStoreTest {
  FeatureTable table;
  DataFile first;

  @BeforeEach
  void setUp() {
    table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .bloomFilter("entity_id", 1000)
        .build());
    table.ingest().synthetic(500, 7).commit();
    first = TestTables.append(table, List.of(
        TestTables.event(table, 1, "2026-01-01T10:00:00Z", 1.0, null),
        TestTables.event(table, 2, "2026-01-01T11:00:00Z", 2.0, 0.5),
        TestTables.event(table, 3, "2026-01-02T11:00:00Z", null, 0.25))).get(0);
    TestTables.positionDelete(table, first, 0);
    TestTables.equalityDelete(table, "entity_id", 3L);
    table.snapshots().createTag("v1", table.snapshots().current().orElseThrow().snapshotId());
    table.evolveSchema().addColumn("feature_c", Types.StringType.get(), "added").commit();
    table.evolveSchema().renameColumn("feature_a", "feature_a2").commit();
    table.evolvePartitionSpec().day("event_time").commit();
    table.ingest().synthetic(200, 8).commit();
  }

  @ParameterizedTest
  @EnumSource(value = MetadataTable.class, names = {"SNAPSHOTS", "HISTORY", "REFS", "PARTITIONS", "FILES", "DATA_FILES",
      "DELETE_FILES", "MANIFESTS"})
  void metadataTable_isIcebergsOwn_rowForRow(MetadataTable kind) throws IOException {
    assertIcebergsOwn(table, kind);
  }

  /** A format v3 table whose deletes are deletion vectors (Puffin), partitioned, with a branch. */
  @ParameterizedTest
  @EnumSource(value = MetadataTable.class, names = {"SNAPSHOTS", "HISTORY", "REFS", "PARTITIONS", "FILES", "DATA_FILES",
      "DELETE_FILES", "MANIFESTS"})
  void metadataTable_ofAV3TableWithDeletionVectors_isIcebergsOwn_rowForRow(MetadataTable kind) throws IOException {
    FeatureTable v3 = store.createTable(TableDefinition.builder("features.v3_events", SyntheticFeatures.schema())
        .formatVersion(3)
        .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
        .build());
    v3.ingest().synthetic(300, 3).commit();
    List<DataFile> files = TestTables.append(v3, List.of(
        TestTables.event(v3, 1, "2026-01-01T10:00:00Z", 1.0, null),
        TestTables.event(v3, 2, "2026-01-01T11:00:00Z", 2.0, 0.5)));
    dev.featurestore.core.query.DiffTables.deletionVector(v3, files.get(0), 1);
    v3.snapshots().createBranch("audit", v3.snapshots().current().orElseThrow().snapshotId());
    v3.ingest().synthetic(100, 4).commit();

    assertIcebergsOwn(v3, kind);
    if (kind == MetadataTable.DELETE_FILES) {
      assertThat(v3.metadata(kind).toList()).singleElement().satisfies(f -> {
        assertThat(f.get("file_format")).isEqualTo("PUFFIN");
        assertThat(f.get("referenced_data_file")).isEqualTo(files.get(0).location());
        assertThat(f.get("bloom_filter_columns")).isEqualTo(List.of());
      });
    }
  }

  private static void assertIcebergsOwn(FeatureTable table, MetadataTable kind) throws IOException {
    Table iceberg = MetadataTableUtils.createMetadataTableInstance(table.unwrap(Table.class),
        MetadataTableType.valueOf(kind.name()));
    Types.StructType struct = iceberg.schema().asStruct();
    List<Object> expected = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> rows = task.asDataTask().rows()) {
          rows.forEach(row -> expected.add(canonical(struct, row))); // rows are reused projections: copy now
        }
      }
    }
    List<Record> actual = new ArrayList<>();
    try (QueryResult result = table.metadata(kind)) {
      assertThat(result.snapshotId()).isEqualTo(table.snapshots().current().orElseThrow().snapshotId());
      // Iceberg's columns first, unchanged (ids, names, types); the file tables add bloom_filter_columns
      List<Types.NestedField> ours = result.schema().columns();
      assertThat(ours.subList(0, iceberg.schema().columns().size())).isEqualTo(iceberg.schema().columns());
      result.forEach(row -> {
        org.apache.iceberg.data.GenericRecord record = org.apache.iceberg.data.GenericRecord.create(result.schema());
        for (int i = 0; i < row.size(); i++) {
          record.set(i, row.get(i));
        }
        actual.add(record);
      });
    }
    assertThat(expected).isNotEmpty();
    // the partitions table's order is a hash map's: compare the rows, not their order
    assertThat(actual.stream().map(r -> canonical(struct, r)).toList()).as("%s", kind)
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * A value in one comparable form, from Iceberg's internal rows (days, micros, CharSequence,
   * StructLike) and from ours (generic types) alike: structs as lists, temporal values as numbers.
   */
  private static Object canonical(org.apache.iceberg.types.Type type, Object value) {
    if (value == null) {
      return null;
    }
    if (type.isStructType()) {
      List<Object> fields = new ArrayList<>();
      List<Types.NestedField> nested = type.asStructType().fields();
      for (int i = 0; i < nested.size(); i++) {
        Object field = value instanceof Record record ? record.get(i) : ((StructLike) value).get(i, Object.class);
        fields.add(canonical(nested.get(i).type(), field));
      }
      return fields;
    }
    if (type.isListType()) {
      List<Object> items = new ArrayList<>();
      ((Iterable<?>) value).forEach(item -> items.add(canonical(type.asListType().elementType(), item)));
      return items;
    }
    if (type.isMapType()) {
      Map<Object, Object> map = new java.util.TreeMap<>(java.util.Comparator.comparing(String::valueOf));
      ((Map<?, ?>) value).forEach((k, v) -> map.put(canonical(type.asMapType().keyType(), k),
          canonical(type.asMapType().valueType(), v)));
      return map;
    }
    if (value instanceof OffsetDateTime t) {
      return DateTimeUtil.microsFromTimestamptz(t);
    }
    if (value instanceof java.time.LocalDateTime t) {
      return DateTimeUtil.microsFromTimestamp(t);
    }
    if (value instanceof LocalDate d) {
      return DateTimeUtil.daysFromDate(d);
    }
    if (value instanceof CharSequence text) {
      return text.toString();
    }
    if (value instanceof ByteBuffer buffer) {
      return org.apache.iceberg.util.ByteBuffers.toByteArray(buffer).length + ":"
          + java.util.HexFormat.of().formatHex(org.apache.iceberg.util.ByteBuffers.toByteArray(buffer));
    }
    return value;
  }

  @Test
  void fileTables_countDataAndDeleteFiles_asTheSnapshotDoes() {
    Table iceberg = table.unwrap(Table.class);
    Map<String, String> summary = iceberg.currentSnapshot().summary();
    assertThat(table.metadata(MetadataTable.DATA_FILES).toList()).hasSize(Integer.parseInt(summary.get("total-data-files")));
    assertThat(table.metadata(MetadataTable.DELETE_FILES).toList()).hasSize(Integer.parseInt(summary.get("total-delete-files")))
        .extracting(r -> r.get("content")).containsExactlyInAnyOrder(1, 2);
  }

  @Test
  void dataFiles_nameTheirBloomColumns_andTypedBounds() {
    List<Map<String, Object>> files = table.metadata(MetadataTable.DATA_FILES).toList();
    // the synthetic ingest wrote with the bloom filter; TestTables' writer too (the table property)
    assertThat(files).allSatisfy(f -> assertThat(f.get("bloom_filter_columns")).isEqualTo(List.of("entity_id")));
    Map<String, Object> appended = files.stream().filter(f -> f.get("file_path").equals(first.location())).findFirst().orElseThrow();
    Record metrics = (Record) appended.get("readable_metrics");
    Record entity = (Record) metrics.getField("entity_id");
    assertThat(entity.getField("lower_bound")).isEqualTo(1L);
    assertThat(entity.getField("upper_bound")).isEqualTo(3L);
    assertThat(table.metadata(MetadataTable.DELETE_FILES).toList())
        .allSatisfy(f -> assertThat(f.get("bloom_filter_columns")).isEqualTo(List.of()));
  }

  @Test
  void schemas_listEveryVersion_withFieldIds() {
    List<Map<String, Object>> rows = table.metadata(MetadataTable.SCHEMAS).toList();
    Table iceberg = table.unwrap(Table.class);
    assertThat(rows).extracting(r -> r.get("schema_id")).containsOnlyElementsOf(iceberg.schemas().keySet());
    assertThat(rows.stream().map(r -> r.get("schema_id")).distinct().count()).isEqualTo(iceberg.schemas().size()).isEqualTo(3);
    int current = iceberg.schema().schemaId();
    assertThat(rows).filteredOn(r -> r.get("schema_id").equals(0))
        .extracting(r -> r.get("field_id") + ":" + r.get("name") + ":" + r.get("type") + ":" + r.get("required"))
        .containsExactly("1:entity_id:long:true", "2:event_time:timestamptz:true", "3:feature_a:double:false",
            "4:feature_b:double:false");
    assertThat(rows).filteredOn(r -> r.get("schema_id").equals(current))
        .allSatisfy(r -> assertThat(r.get("is_current")).isEqualTo(true))
        .extracting(r -> r.get("field_id") + ":" + r.get("name"))
        .containsExactly("1:entity_id", "2:event_time", "3:feature_a2", "4:feature_b", "5:feature_c");
    assertThat(rows).filteredOn(r -> r.get("name").equals("feature_c")).first()
        .satisfies(r -> assertThat(r.get("doc")).isEqualTo("added"));
  }

  @Test
  void metadataResult_isSingleUse_andTyped() {
    try (QueryResult snapshots = table.metadata(MetadataTable.SNAPSHOTS)) {
      assertThat(snapshots.schema().findField("committed_at").type()).isEqualTo(Types.TimestampType.withZone());
      assertThat(snapshots.iterator().next().get("committed_at")).isInstanceOf(OffsetDateTime.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(snapshots::iterator)
          .isInstanceOf(dev.featurestore.InvalidStateException.class)
          .hasMessage("Cannot iterate query result: already iterated (a result is single-use)");
    }
  }
}
