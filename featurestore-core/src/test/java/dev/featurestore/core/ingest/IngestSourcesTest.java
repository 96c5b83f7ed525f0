package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.dataFilesOnDisk;
import static dev.featurestore.core.ingest.IngestTestSupport.events;
import static dev.featurestore.core.ingest.IngestTestSupport.iceberg;
import static dev.featurestore.core.ingest.IngestTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestProgress;
import dev.featurestore.IngestResult;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.LocalFileIO;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestSourcesTest {
  static final Schema TYPES = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "f", Types.FloatType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(6, "b", Types.BooleanType.get()),
      Types.NestedField.optional(7, "s", Types.StringType.get()),
      Types.NestedField.optional(8, "dt", Types.DateType.get()),
      Types.NestedField.optional(9, "tm", Types.TimeType.get()),
      Types.NestedField.optional(10, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(11, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(12, "u", Types.UUIDType.get()),
      Types.NestedField.optional(13, "bin", Types.BinaryType.get()));

  static final UUID U = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

  @TempDir Path dir;
  FeatureStore store;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  FeatureTable typesTable() {
    return store.createTable(TableDefinition.builder(TableId.of("t", "types"), TYPES).build());
  }

  /** The row every source below must produce for id 1. */
  static void assertFirstTypesRow(Record r) {
    assertThat(r.getField("id")).isEqualTo(1L);
    assertThat(r.getField("i")).isEqualTo(42);
    assertThat(r.getField("f")).isEqualTo(1.5f);
    assertThat(r.getField("d")).isEqualTo(2.25);
    assertThat(r.getField("dec")).isEqualTo(new BigDecimal("12.30"));
    assertThat(r.getField("b")).isEqualTo(true);
    assertThat(r.getField("s")).isEqualTo("hello");
    assertThat(r.getField("dt")).isEqualTo(LocalDate.of(2024, 3, 1));
    assertThat(r.getField("tm")).isEqualTo(LocalTime.of(12, 30, 15));
    assertThat(r.getField("ts")).isEqualTo(LocalDateTime.of(2024, 3, 1, 10, 0));
    assertThat(r.getField("tstz")).isEqualTo(OffsetDateTime.of(2024, 3, 1, 8, 0, 0, 0, ZoneOffset.UTC));
    assertThat(r.getField("u")).isEqualTo(U);
    assertThat(r.getField("bin")).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
  }

  static void assertSecondRowAllNull(Record r) {
    assertThat(r.getField("id")).isEqualTo(2L);
    for (int i = 1; i < TYPES.columns().size(); i++) {
      assertThat(r.get(i)).as(TYPES.columns().get(i).name()).isNull();
    }
  }

  @Test
  void rows_fromStrings_convertEveryType() {
    FeatureTable table = typesTable();
    Map<String, Object> row = new HashMap<>();
    row.put("id", "1");
    row.put("i", "42");
    row.put("f", "1.5");
    row.put("d", "2.25");
    row.put("dec", "12.3");
    row.put("b", "TRUE");
    row.put("s", "hello");
    row.put("dt", "2024-03-01");
    row.put("tm", "12:30:15");
    row.put("ts", "2024-03-01 10:00:00");
    row.put("tstz", "2024-03-01T10:00:00+02:00");
    row.put("u", U.toString());
    row.put("bin", "AQID");
    Map<String, Object> nulls = new HashMap<>();
    nulls.put("id", 2);
    nulls.put("s", null);

    IngestResult result = table.ingest().rows(List.of(row, nulls)).commit();

    assertThat(result.rows()).isEqualTo(2);
    assertThat(result.snapshotId()).hasValue(IngestTestSupport.currentSnapshotId(table));
    assertThat(result.dataFiles()).isEqualTo(1);
    assertThat(result.dataBytes()).isPositive();
    assertThat(result.addedColumns()).isEmpty();
    List<Record> rows = read(table);
    assertThat(rows).hasSize(2);
    assertFirstTypesRow(rows.get(0));
    assertSecondRowAllNull(rows.get(1));
  }

  @Test
  void rows_fromJavaValues_widenAndConvertTimestampKinds() {
    FeatureTable table = typesTable();
    Map<String, Object> row = new HashMap<>();
    row.put("id", 1);                       // int -> long
    row.put("i", (short) 42);               // short -> int
    row.put("f", 1.5d);                     // exact double -> float
    row.put("d", 2.25f);                    // float -> double
    row.put("dec", new BigDecimal("12.3")); // scale widened
    row.put("b", true);
    row.put("s", "hello");
    row.put("dt", LocalDate.of(2024, 3, 1));
    row.put("tm", LocalTime.of(12, 30, 15));
    row.put("ts", Instant.parse("2024-03-01T10:00:00Z"));                        // instant -> local UTC
    row.put("tstz", LocalDateTime.of(2024, 3, 1, 10, 0).atZone(ZoneId.of("Europe/Berlin"))); // zoned -> UTC
    row.put("u", U);
    row.put("bin", new byte[] {1, 2, 3});

    table.ingest().rows(List.of(row)).commit();

    Record r = read(table).get(0);
    assertThat(r.getField("tstz")).isEqualTo(OffsetDateTime.of(2024, 3, 1, 9, 0, 0, 0, ZoneOffset.UTC));
    r.setField("tstz", OffsetDateTime.of(2024, 3, 1, 8, 0, 0, 0, ZoneOffset.UTC));
    assertFirstTypesRow(r);
  }

  record Event(long entityId, Instant eventTime, Double featureA, double featureB) {}

  public static final class EventBean {
    private final long entityId;
    private final OffsetDateTime eventTime;
    private final double featureA;

    EventBean(long entityId, OffsetDateTime eventTime, double featureA) {
      this.entityId = entityId;
      this.eventTime = eventTime;
      this.featureA = featureA;
    }

    public long getEntityId() {
      return entityId;
    }

    public OffsetDateTime getEventTime() {
      return eventTime;
    }

    public double getFeatureA() {
      return featureA;
    }
  }

  @Test
  void objects_recordsAndBeans_matchSnakeCaseColumns() {
    FeatureTable table = store.createTable(events());
    Instant t = Instant.parse("2024-05-01T12:00:00Z");
    List<Object> objects = List.of(
        new Event(1, t, 0.5, 1.5),
        new Event(2, t.plusSeconds(60), null, 2.5),
        new EventBean(3, OffsetDateTime.of(2024, 5, 2, 14, 0, 0, 0, ZoneOffset.ofHours(2)), 3.5));

    IngestResult result = table.ingest().objects(objects).commit();

    assertThat(result.rows()).isEqualTo(3);
    List<Record> rows = read(table);
    assertThat(rows).extracting(r -> r.getField("entity_id")).containsExactly(1L, 2L, 3L);
    assertThat(rows).extracting(r -> r.getField("event_time")).containsExactly(
        t.atOffset(ZoneOffset.UTC), t.plusSeconds(60).atOffset(ZoneOffset.UTC),
        OffsetDateTime.of(2024, 5, 2, 12, 0, 0, 0, ZoneOffset.UTC));
    assertThat(rows).extracting(r -> r.getField("feature_a")).containsExactly(0.5, null, 3.5);
    assertThat(rows).extracting(r -> r.getField("feature_b")).containsExactly(1.5, 2.5, null);
    // two days: two partitions, two files
    assertThat(result.dataFiles()).isEqualTo(2);
  }

  @Test
  void synthetic_featureEvents_countReproducibleAndSpreadOverSevenDays() {
    FeatureTable table = store.createTable(events());
    IngestResult first = table.ingest().synthetic(5_000, 7).commit();
    List<Record> firstRows = read(table);

    FeatureTable other = store.createTable(TableDefinition.builder(TableId.of("features", "copy"), events().schema())
        .partitionSpec(events().partitionSpec()).build());
    other.ingest().synthetic(5_000, 7).commit();
    FeatureTable third = store.createTable(TableDefinition.builder(TableId.of("features", "seed8"), events().schema())
        .partitionSpec(events().partitionSpec()).build());
    third.ingest().synthetic(5_000, 8).commit();

    assertThat(first.rows()).isEqualTo(5_000);
    assertThat(firstRows).hasSize(5_000);
    assertThat(read(other)).isEqualTo(firstRows);
    assertThat(read(third)).isNotEqualTo(firstRows);

    Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
    Set<LocalDate> days = new TreeSet<>();
    for (Record r : firstRows) {
      long entity = (Long) r.getField("entity_id");
      assertThat(entity).isBetween(0L, 99_999L);
      Instant time = ((OffsetDateTime) r.getField("event_time")).toInstant();
      assertThat(time).isBetween(today.minus(7, ChronoUnit.DAYS), today);
      days.add(LocalDate.ofInstant(time, ZoneOffset.UTC));
      assertThat(r.getField("feature_a")).isInstanceOf(Double.class);
      assertThat(r.getField("feature_b")).isInstanceOf(Double.class);
    }
    assertThat(days).hasSize(7);
    // partitioned by day: one file per day, each holding one day only
    Table iceberg = iceberg(table);
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(files).hasSize(7);
    assertThat(files).extracting(f -> f.partition().get(0, Integer.class)).doesNotHaveDuplicates();
    double mean = firstRows.stream().mapToDouble(r -> (Double) r.getField("feature_a")).average().orElseThrow();
    assertThat(mean).isBetween(-0.05, 0.05);
  }

  @Test
  void synthetic_anySchema_generatesEveryType() {
    FeatureTable table = typesTable();
    table.ingest().synthetic(500, 1).commit();
    List<Record> rows = read(table);
    assertThat(rows).hasSize(500);
    assertThat(rows).allSatisfy(r -> assertThat(r.getField("id")).isNotNull());
    assertThat(rows).anySatisfy(r -> {
      assertThat(r.getField("dec")).isInstanceOf(BigDecimal.class);
      assertThat(r.getField("u")).isInstanceOf(UUID.class);
      assertThat(r.getField("tstz")).isInstanceOf(OffsetDateTime.class);
    });
  }

  static final String CSV = "id,i,f,d,dec,b,s,dt,tm,ts,tstz,u,bin\n"
      + "1,42,1.5,2.25,12.30,true,hello,2024-03-01,12:30:15,2024-03-01T10:00:00,2024-03-01T08:00:00Z," + U + ",AQID\n"
      + "\n"
      + "2,,,,,,,,,,,,\n";

  @Test
  void csv_headerEmptyFieldsAreNull_valueByValue() throws Exception {
    FeatureTable table = typesTable();
    Path file = Files.writeString(dir.resolve("in.csv"), CSV);

    IngestResult result = table.ingest().csv(file).commit();

    assertThat(result.rows()).isEqualTo(2);
    List<Record> rows = read(table);
    assertFirstTypesRow(rows.get(0));
    assertSecondRowAllNull(rows.get(1));
  }

  static final String JSON_FIRST = "{\"id\": 1, \"i\": 42, \"f\": 1.5, \"d\": 2.25, \"dec\": 12.30, \"b\": true,"
      + " \"s\": \"hello\", \"dt\": \"2024-03-01\", \"tm\": \"12:30:15\", \"ts\": \"2024-03-01T10:00:00\","
      + " \"tstz\": \"2024-03-01T09:00:00+01:00\", \"u\": \"" + U + "\", \"bin\": \"AQID\"}";

  @Test
  void jsonLines_valueByValue() throws Exception {
    FeatureTable table = typesTable();
    Path file = Files.writeString(dir.resolve("in.jsonl"), JSON_FIRST + "\n\n{\"id\": 2, \"s\": null}\n");

    IngestResult result = table.ingest().json(file).commit();

    assertThat(result.rows()).isEqualTo(2);
    List<Record> rows = read(table);
    assertFirstTypesRow(rows.get(0));
    assertSecondRowAllNull(rows.get(1));
  }

  @Test
  void jsonArray_valueByValue() throws Exception {
    FeatureTable table = typesTable();
    Path file = Files.writeString(dir.resolve("in.json"), "  \n[\n" + JSON_FIRST + ",\n {\"id\": 2}\n]\n");

    table.ingest().json(file).commit();

    List<Record> rows = read(table);
    assertThat(rows).hasSize(2);
    assertFirstTypesRow(rows.get(0));
    assertSecondRowAllNull(rows.get(1));
  }

  @Test
  void parquet_matchesColumnsByName_inAnotherOrderWithNarrowerTypes() throws Exception {
    FeatureTable table = store.createTable(events());
    // another column order, other field ids, int instead of long, float instead of double
    Schema fileSchema = new Schema(
        Types.NestedField.optional(1, "feature_b", Types.FloatType.get()),
        Types.NestedField.required(2, "event_time", Types.TimestampType.withoutZone()),
        Types.NestedField.optional(3, "feature_a", Types.DoubleType.get()),
        Types.NestedField.required(4, "entity_id", Types.IntegerType.get()));
    Path file = dir.resolve("in.parquet");
    LocalFileIO io = new LocalFileIO();
    try (FileAppender<Record> appender = Parquet.write(io.newOutputFile(file.toString()))
        .schema(fileSchema)
        .createWriterFunc(GenericParquetWriter::create)
        .build()) {
      for (int i = 0; i < 3; i++) {
        GenericRecord r = GenericRecord.create(fileSchema);
        r.setField("feature_b", i * 0.5f);
        r.setField("event_time", LocalDateTime.of(2024, 1, 1 + i, 6, 0));
        r.setField("feature_a", i == 1 ? null : i * 1.25);
        r.setField("entity_id", 100 + i);
        appender.add(r);
      }
    }

    IngestResult result = table.ingest().parquet(file).commit();

    assertThat(result.rows()).isEqualTo(3);
    List<Record> rows = read(table);
    assertThat(rows).extracting(r -> r.getField("entity_id")).containsExactly(100L, 101L, 102L);
    assertThat(rows).extracting(r -> r.getField("event_time")).containsExactly(
        OffsetDateTime.of(2024, 1, 1, 6, 0, 0, 0, ZoneOffset.UTC),
        OffsetDateTime.of(2024, 1, 2, 6, 0, 0, 0, ZoneOffset.UTC),
        OffsetDateTime.of(2024, 1, 3, 6, 0, 0, 0, ZoneOffset.UTC));
    assertThat(rows).extracting(r -> r.getField("feature_a")).containsExactly(0.0, null, 2.5);
    assertThat(rows).extracting(r -> r.getField("feature_b")).containsExactly(0.0, 0.5, 1.0);
  }

  @Test
  void commit_writesSourceAndCustomPropertiesIntoSnapshotSummary() {
    FeatureTable table = store.createTable(events());
    table.ingest().synthetic(10, 1).snapshotProperty("job", "nightly").commit();
    Snapshot snapshot = iceberg(table).currentSnapshot();
    assertThat(snapshot.summary()).containsEntry("featurestore.ingest.source", "synthetic")
        .containsEntry("job", "nightly")
        .containsEntry("added-records", "10");
    assertThat(snapshot.operation()).isEqualTo("append");
  }

  @Test
  void progress_firesWithIncreasingRowsAndFinalDone() {
    FeatureTable table = store.createTable(events());
    List<IngestProgress> calls = new ArrayList<>();
    table.ingest().synthetic(10_000, 3).listener(calls::add, 2_500).commit();

    assertThat(calls).extracting(IngestProgress::rows).containsExactly(2_500L, 5_000L, 7_500L, 10_000L, 10_000L);
    assertThat(calls).extracting(IngestProgress::done).containsExactly(false, false, false, false, true);
    IngestProgress last = calls.get(calls.size() - 1);
    assertThat(last.filesWritten()).isEqualTo(7);
    assertThat(last.bytesWritten()).isPositive();
  }

  @Test
  void progress_onRowSources_everyNRows() throws Exception {
    FeatureTable table = store.createTable(events());
    StringBuilder csv = new StringBuilder("entity_id,event_time,feature_a\n");
    for (int i = 0; i < 1_000; i++) {
      csv.append(i).append(",2024-01-01T00:00:00Z,").append(i * 0.5).append('\n');
    }
    Path file = Files.writeString(dir.resolve("p.csv"), csv);
    List<Long> rows = new ArrayList<>();
    List<Boolean> done = new ArrayList<>();
    table.ingest().csv(file).listener(p -> {
      rows.add(p.rows());
      done.add(p.done());
    }, 300).commit();
    assertThat(rows).containsExactly(300L, 600L, 900L, 1_000L);
    assertThat(done).containsExactly(false, false, false, true);
  }

  @Test
  void dryRun_validatesWholeSource_writesNothing() throws Exception {
    FeatureTable table = store.createTable(events());
    Path file = Files.writeString(dir.resolve("d.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"}\n"
            + "{\"entity_id\": 2, \"event_time\": \"2024-01-01T00:00:00Z\", \"clicks\": 3}\n");

    IngestResult result = table.ingest().json(file).autoEvolveSchema(true).apply();

    assertThat(result.rows()).isEqualTo(2);
    assertThat(result.snapshotId()).isEmpty();
    assertThat(result.addedColumns()).containsExactly("clicks");
    assertThat(result.dataFiles()).isZero();
    assertThat(IngestTestSupport.currentSnapshotId(table)).isEqualTo(-1);
    assertThat(dataFilesOnDisk(table)).isEmpty();
    assertThat(iceberg(table).schema().findField("clicks")).isNull();
  }

  @Test
  void emptyInput_commitsNothing() throws Exception {
    FeatureTable table = store.createTable(events());
    Path file = Files.writeString(dir.resolve("empty.csv"), "entity_id,event_time\n");

    IngestResult csv = table.ingest().csv(file).commit();
    IngestResult rows = table.ingest().rows(List.of()).commit();

    assertThat(csv.rows()).isZero();
    assertThat(csv.snapshotId()).isEmpty();
    assertThat(rows.snapshotId()).isEmpty();
    assertThat(IngestTestSupport.currentSnapshotId(table)).isEqualTo(-1);
    assertThat(dataFilesOnDisk(table)).isEmpty();
  }

  @Test
  void csv_200kLines_streams() throws Exception {
    FeatureTable table = store.createTable(events());
    Path file = dir.resolve("big.csv");
    try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write("entity_id,event_time,feature_a,feature_b\n");
      for (int i = 0; i < 200_000; i++) {
        out.write(i % 1000 + ",2024-01-0" + (1 + i % 7) + "T12:00:00Z," + i + ".5,\n");
      }
    }
    IngestResult result = table.ingest().csv(file).commit();
    assertThat(result.rows()).isEqualTo(200_000);
    assertThat(result.dataFiles()).isEqualTo(7);
    assertThat(iceberg(table).currentSnapshot().summary()).containsEntry("added-records", "200000");
  }
}
