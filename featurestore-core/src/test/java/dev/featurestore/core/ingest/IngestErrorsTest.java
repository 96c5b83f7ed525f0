package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.currentSnapshotId;
import static dev.featurestore.core.ingest.IngestTestSupport.dataFilesOnDisk;
import static dev.featurestore.core.ingest.IngestTestSupport.events;
import static dev.featurestore.core.ingest.IngestTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.Ingest;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every data error has an exact message, and leaves the table exactly as it was, with no files left behind. */
class IngestErrorsTest {
  @TempDir Path dir;
  FeatureStore store;
  FeatureTable table;
  long snapshotBefore;
  List<Record> rowsBefore;
  List<Path> filesBefore;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    table = store.createTable(events());
    table.ingest().synthetic(1_000, 1).commit();
    snapshotBefore = currentSnapshotId(table);
    rowsBefore = read(table);
    filesBefore = dataFilesOnDisk(table);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Runs a failing ingest and checks the table is unchanged and no file was left. */
  private void assertFails(Function<Ingest, Ingest> ingest, Class<? extends Throwable> type, String message) {
    assertThatThrownBy(() -> ingest.apply(table.ingest()).commit())
        .isInstanceOf(type)
        .hasMessage(message);
    assertThat(currentSnapshotId(table)).isEqualTo(snapshotBefore);
    assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
    assertThat(read(table)).isEqualTo(rowsBefore);
  }

  /** Rows spread over several days (several open files) before the bad one. */
  private static List<Map<String, Object>> goodRows(int n) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, Object> row = new HashMap<>();
      row.put("entity_id", i);
      row.put("event_time", "2024-01-0" + (1 + i % 5) + "T00:00:00Z");
      row.put("feature_a", i * 0.5);
      rows.add(row);
    }
    return rows;
  }

  private static List<Map<String, Object>> withBad(String column, Object value) {
    List<Map<String, Object>> rows = goodRows(5);
    Map<String, Object> bad = new HashMap<>(rows.get(0));
    bad.put(column, value);
    rows.add(bad);
    return rows;
  }

  @Test
  void rows_wrongType_namesRowColumnAndValue() {
    InvalidDataException e = null;
    assertFails(i -> i.rows(withBad("feature_a", "abc")), InvalidDataException.class,
        "Cannot ingest row 6: column feature_a expects double: \"abc\"");
    try {
      table.ingest().rows(withBad("feature_a", "abc")).commit();
    } catch (InvalidDataException thrown) {
      e = thrown;
    }
    assertThat(e.row()).hasValue(6);
    assertThat(e.column()).hasValue("feature_a");
  }

  @Test
  void rows_fractionalIntoLong_fails() {
    assertFails(i -> i.rows(withBad("entity_id", 1.5)), InvalidDataException.class,
        "Cannot ingest row 6: column entity_id expects long: 1.5");
  }

  @Test
  void rows_badTimestamp_fails() {
    assertFails(i -> i.rows(withBad("event_time", "yesterday")), InvalidDataException.class,
        "Cannot ingest row 6: column event_time expects timestamptz: \"yesterday\"");
  }

  @Test
  void rows_requiredNull_fails() {
    assertFails(i -> i.rows(withBad("entity_id", null)), InvalidDataException.class,
        "Cannot ingest row 6: column entity_id is required: null");
  }

  @Test
  void rows_requiredMissing_fails() {
    List<Map<String, Object>> rows = goodRows(2);
    rows.get(1).remove("event_time");
    assertFails(i -> i.rows(rows), InvalidDataException.class,
        "Cannot ingest row 2: column event_time is required: null");
  }

  @Test
  void rows_unknownColumn_failsWithoutAutoEvolve() {
    assertFails(i -> i.rows(withBad("clicks", 3)), InvalidDataException.class,
        "Cannot ingest row 6: unknown column: clicks");
  }

  @Test
  void rows_unknownColumnWithUninferableValue_failsEvenWithAutoEvolve() {
    assertFails(i -> i.rows(withBad("tags", List.of(1, 2))).autoEvolveSchema(true), InvalidDataException.class,
        "Cannot ingest row 6: cannot infer a type for new column tags: [1, 2]");
  }

  @Test
  void decimalAndIntRanges_fail() {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "price", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(2, "n", Types.IntegerType.get()));
    FeatureTable t = store.createTable(TableDefinition.builder(TableId.of("t", "ranges"), schema).build());
    assertThatThrownBy(() -> t.append(List.of(Map.of("price", "1.234"))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column price expects decimal(9, 2): \"1.234\"");
    assertThatThrownBy(() -> t.append(List.of(Map.of("price", 12345678.9))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column price expects decimal(9, 2): 1.23456789E7");
    assertThatThrownBy(() -> t.append(List.of(Map.of("n", 3_000_000_000L))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column n expects int: 3000000000");
    assertThat(currentSnapshotId(t)).isEqualTo(-1);
    assertThat(dataFilesOnDisk(t)).isEmpty();
  }

  @Test
  void csv_badValue_namesTheLine() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.csv"),
        "entity_id,event_time,feature_a\n"
            + "1,2024-01-01T00:00:00Z,0.5\n"
            + "\n"
            + "2,2024-01-02T00:00:00Z,0.5\n"
            + "3,2024-01-03T00:00:00Z,abc\n");
    assertFails(i -> i.csv(file), InvalidDataException.class,
        "Cannot ingest row 5: column feature_a expects double: \"abc\"");
  }

  @Test
  void csv_wrongFieldCount_namesTheLine() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.csv"),
        "entity_id,event_time,feature_a\n"
            + "1,2024-01-01T00:00:00Z,0.5\n"
            + "2,2024-01-02T00:00:00Z,0.5,9\n");
    assertFails(i -> i.csv(file), InvalidDataException.class,
        "Cannot parse CSV at line 3: expected 3 fields, found 4");
  }

  @Test
  void csv_duplicateHeader_fails() throws Exception {
    Path file = Files.writeString(dir.resolve("dup.csv"), "entity_id,entity_id\n1,2\n");
    assertFails(i -> i.csv(file), InvalidDataException.class,
        "Cannot parse CSV at line 1: duplicate column in header: entity_id");
  }

  @Test
  void csv_unknownColumn_failsWithoutAutoEvolve() throws Exception {
    Path file = Files.writeString(dir.resolve("u.csv"),
        "entity_id,event_time,clicks\n1,2024-01-01T00:00:00Z,\n2,2024-01-01T00:00:00Z,3\n");
    assertFails(i -> i.csv(file), InvalidDataException.class, "Cannot ingest row 2: unknown column: clicks");
  }

  @Test
  void json_malformedLine_namesTheLine() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"}\n"
            + "{\"entity_id\": 2, \"event_time\": \"2024-01-02T00:00:00Z\"}\n"
            + "{\"entity_id\": 3, \"event_time\" \"2024-01-03T00:00:00Z\"}\n");
    assertFails(i -> i.json(file), InvalidDataException.class,
        "Cannot parse JSON at line 3: Unexpected character ('\"' (code 34)): was expecting a colon to separate field name and value");
  }

  @Test
  void json_nonObject_fails() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"}\n42\n");
    assertFails(i -> i.json(file), InvalidDataException.class, "Cannot parse JSON at line 2: expected an object: 42");
  }

  @Test
  void json_badValueInArray_namesTheLineOfTheObject() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.json"),
        "[\n  {\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"},\n"
            + "  {\"entity_id\": \"x\", \"event_time\": \"2024-01-01T00:00:00Z\"}\n]");
    assertFails(i -> i.json(file), InvalidDataException.class,
        "Cannot ingest row 3: column entity_id expects long: \"x\"");
  }

  @Test
  void missingFile_isNotFound() {
    Path missing = dir.resolve("nope.csv");
    assertFails(i -> i.csv(missing), NotFoundException.class,
        "Cannot read ingest source: file does not exist: " + missing);
    assertFails(i -> i.json(missing), NotFoundException.class,
        "Cannot read ingest source: file does not exist: " + missing);
    assertFails(i -> i.parquet(missing), NotFoundException.class,
        "Cannot read ingest source: file does not exist: " + missing);
  }

  @Test
  void misuse_isRejected() {
    assertThatThrownBy(() -> table.ingest().synthetic(1, 1).csv(dir.resolve("x.csv")))
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot set ingest source: already set: synthetic");
    assertThatThrownBy(() -> table.ingest().commit())
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit ingest: no source set");
    assertThatThrownBy(() -> table.ingest().listener(p -> {}, 0))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot report ingest progress: everyRows must be positive: 0");
    Ingest once = table.ingest().synthetic(10, 1);
    once.commit();
    assertThatThrownBy(once::commit)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit ingest: already committed");
    assertThatThrownBy(once::apply)
        .isInstanceOf(InvalidStateException.class)
        .hasMessage("Cannot commit ingest: already committed");
  }
}
