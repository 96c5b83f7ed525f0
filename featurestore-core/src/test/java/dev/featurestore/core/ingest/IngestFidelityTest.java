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
import dev.featurestore.InvalidDataException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing is stored other than it was given: values out of a type's range, duplicate JSON keys,
 * unpaired surrogates, timestamps Iceberg cannot hold, undecodable text and corrupt Parquet pages
 * are refused with the row (or line, or file) and column, and the table stays as it was.
 */
class IngestFidelityTest {
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
    table.ingest().synthetic(100, 1).commit();
    snapshotBefore = currentSnapshotId(table);
    rowsBefore = read(table);
    filesBefore = dataFilesOnDisk(table);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private InvalidDataException assertFails(Function<Ingest, Ingest> ingest, String message) {
    InvalidDataException[] thrown = new InvalidDataException[1];
    assertThatThrownBy(() -> ingest.apply(table.ingest()).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage(message)
        .satisfies(e -> thrown[0] = (InvalidDataException) e);
    assertThat(currentSnapshotId(table)).isEqualTo(snapshotBefore);
    assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
    assertThat(read(table)).isEqualTo(rowsBefore);
    return thrown[0];
  }

  private static Map<String, Object> row(String column, Object value) {
    Map<String, Object> row = new HashMap<>();
    row.put("entity_id", 1L);
    row.put("event_time", "2024-01-01T00:00:00Z");
    row.put(column, value);
    return row;
  }

  @Test
  void doubleOverflow_inText_isRefusedNotInfinity() throws Exception {
    Path csv = Files.writeString(dir.resolve("big.csv"),
        "entity_id,event_time,feature_a\n1,2024-01-01T00:00:00Z,0.5\n2,2024-01-01T00:00:00Z,1e400\n");
    InvalidDataException e = assertFails(i -> i.csv(csv),
        "Cannot ingest row 3: column feature_a expects double: out of range: \"1e400\"");
    assertThat(e.row()).hasValue(3);
    assertThat(e.column()).hasValue("feature_a");

    Path json = Files.writeString(dir.resolve("big.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\", \"feature_a\": -1e400}\n");
    assertFails(i -> i.json(json), "Cannot ingest row 1: column feature_a expects double: out of range: \"-1e400\"");
    Path tiny = Files.writeString(dir.resolve("tiny.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\", \"feature_a\": 1e-400}\n");
    assertFails(i -> i.json(tiny), "Cannot ingest row 1: column feature_a expects double: out of range: \"1e-400\"");

    assertFails(i -> i.rows(List.of(row("feature_a", new BigDecimal("1e400")))),
        "Cannot ingest row 1: column feature_a expects double: out of range: 1E+400");
  }

  @Test
  void infinityAndNaNLiterals_andZero_stayAccepted() throws Exception {
    Path csv = Files.writeString(dir.resolve("ok.csv"),
        "entity_id,event_time,feature_a,feature_b\n1,2024-01-01T00:00:00Z,Infinity,NaN\n2,2024-01-01T00:00:00Z,0.0,-0e5\n");
    table.ingest().csv(csv).commit();
    Path json = Files.writeString(dir.resolve("ok.jsonl"),
        "{\"entity_id\": 3, \"event_time\": \"2024-01-01T00:00:00Z\", \"feature_a\": 0.0, \"feature_b\": 1.5e300}\n");
    table.ingest().json(json).commit();
    List<Record> rows = read(table);
    assertThat(rows).hasSize(rowsBefore.size() + 3);
    assertThat(rows).anySatisfy(r -> {
      assertThat(r.getField("feature_a")).isEqualTo(Double.POSITIVE_INFINITY);
      assertThat((Double) r.getField("feature_b")).isNaN();
    });
    assertThat(rows).anySatisfy(r -> assertThat(r.getField("feature_b")).isEqualTo(1.5e300));
  }

  @Test
  void floatOverflow_isRefused() {
    Schema schema = new Schema(Types.NestedField.optional(1, "f", Types.FloatType.get()));
    FeatureTable t = store.createTable(TableDefinition.builder(TableId.of("t", "floats"), schema).build());
    assertThatThrownBy(() -> t.append(List.of(Map.of("f", "1e39"))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column f expects float: out of range: \"1e39\"");
    assertThatThrownBy(() -> t.append(List.of(Map.of("f", new BigDecimal("1e39")))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column f expects float: out of range: 1E+39");
    assertThat(currentSnapshotId(t)).isEqualTo(-1);
  }

  @Test
  void duplicateJsonKeys_areRefused() throws Exception {
    Path json = Files.writeString(dir.resolve("dup.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"}\n"
            + "{\"entity_id\": 2, \"event_time\": \"2024-01-01T00:00:00Z\", \"feature_a\": 1, \"feature_a\": 2}\n");
    InvalidDataException e = assertFails(i -> i.json(json), "Cannot parse JSON at line 2: Duplicate field 'feature_a'");
    assertThat(e.row()).hasValue(2);
  }

  @Test
  void unpairedSurrogates_areRefused_inRowsAndJson() throws Exception {
    Schema schema = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()),
        Types.NestedField.optional(2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));
    FeatureTable t = store.createTable(TableDefinition.builder(TableId.of("t", "strings"), schema).build());
    assertThatThrownBy(() -> t.append(List.of(Map.of("s", "ok"), Map.of("s", "a\uD800b"))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 2: column s expects string: unpaired surrogate at index 1: \"a\\uD800b\"");
    assertThatThrownBy(() -> t.append(List.of(Map.of("s", "\uDC00"))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column s expects string: unpaired surrogate at index 0: \"\\uDC00\"");
    assertThatThrownBy(() -> t.append(List.of(Map.of("tags", List.of("x", "y\uD83D")))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessageStartingWith("Cannot ingest row 1: column tags expects list: unpaired surrogate at index 1: ");
    Path json = Files.writeString(dir.resolve("s.jsonl"), "{\"s\": \"a\\uD800b\"}\n");
    assertThatThrownBy(() -> t.ingest().json(json).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column s expects string: unpaired surrogate at index 1: \"a\\uD800b\"");
    assertThat(currentSnapshotId(t)).isEqualTo(-1);

    // a well-formed pair (an emoji) is kept exactly
    t.append(List.of(Map.of("s", "smile \uD83D\uDE00")));
    assertThat(read(t)).extracting(r -> r.getField("s")).containsExactly("smile \uD83D\uDE00");
  }

  @Test
  void timestampsIcebergCannotHold_nameRowAndColumn() throws Exception {
    InvalidDataException e = assertFails(
        i -> i.rows(List.of(row("feature_a", 1.0), row("event_time", OffsetDateTime.of(300_000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)))),
        "Cannot ingest row 2: column event_time expects timestamptz: out of range: +300000-01-01T00:00Z");
    assertThat(e.column()).hasValue("event_time");
    assertFails(i -> i.rows(List.of(row("event_time", Instant.MIN))),
        "Cannot ingest row 1: column event_time expects timestamptz: out of range: -1000000000-01-01T00:00:00Z");
    Path csv = Files.writeString(dir.resolve("far.csv"),
        "entity_id,event_time\n1,2024-01-01T00:00:00Z\n2,+300000-01-01T00:00:00Z\n");
    assertFails(i -> i.csv(csv),
        "Cannot ingest row 3: column event_time expects timestamptz: out of range: \"+300000-01-01T00:00:00Z\"");
    // the far ends Iceberg can hold are kept
    table.ingest().rows(List.of(row("event_time", OffsetDateTime.of(200_000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
        row("event_time", LocalDateTime.of(1, 1, 1, 0, 0)))).commit();
    assertThat(read(table)).hasSize(rowsBefore.size() + 2);
  }

  @Test
  void nanosecondTimestampsAndDates_outOfRange_areRefused() {
    Schema schema = new Schema(Types.NestedField.optional(1, "ns", Types.TimestampNanoType.withZone()),
        Types.NestedField.optional(2, "d", Types.DateType.get()));
    FeatureTable t = store.createTable(TableDefinition.builder(TableId.of("t", "ns"), schema)
        .formatVersion(3).build());
    assertThatThrownBy(() -> t.append(List.of(Map.of("ns", "2300-01-01T00:00:00Z"))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column ns expects timestamptz_ns: out of range: \"2300-01-01T00:00:00Z\"");
    assertThatThrownBy(() -> t.append(List.of(Map.of("d", LocalDate.MAX))))
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 1: column d expects date: out of range: +999999999-12-31");
    t.append(List.of(Map.of("ns", "2262-01-01T00:00:00Z", "d", LocalDate.of(5_000_000, 1, 1))));
    assertThat(read(t)).hasSize(1);
  }

  @Test
  void csvThatIsNotUtf8_isInvalidDataWithTheLine() throws Exception {
    byte[] head = "entity_id,event_time,feature_a\n1,2024-01-01T00:00:00Z,0.5\n2,2024-01-01T00:00:00Z,".getBytes(StandardCharsets.UTF_8);
    byte[] bad = {(byte) 0xC3, (byte) 0x28, '\n'};
    byte[] bytes = new byte[head.length + bad.length];
    System.arraycopy(head, 0, bytes, 0, head.length);
    System.arraycopy(bad, 0, bytes, head.length, bad.length);
    Path csv = Files.write(dir.resolve("latin.csv"), bytes);
    InvalidDataException e = null;
    try {
      table.ingest().csv(csv).commit();
    } catch (InvalidDataException thrown) {
      e = thrown;
    }
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).startsWith("Cannot parse CSV at line 3: invalid UTF-8: ");
    assertThat(e.row()).hasValue(3);
    assertThat(currentSnapshotId(table)).isEqualTo(snapshotBefore);
    assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
  }

  @Test
  void parquetWithCorruptPages_isInvalidDataNamingTheFile() throws Exception {
    Schema schema = table.schema();
    Path file = dir.resolve("corrupt.parquet");
    try (FileAppender<Record> appender = Parquet.write(org.apache.iceberg.Files.localOutput(file.toFile())).schema(schema)
        .createWriterFunc(GenericParquetWriter::create).build()) {
      for (long i = 0; i < 2_000; i++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("entity_id", i);
        r.setField("event_time", OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        r.setField("feature_a", i * 0.25);
        appender.add(r);
      }
    }
    byte[] bytes = Files.readAllBytes(file);
    // the pages start right after the leading magic; the footer at the end stays intact
    for (int i = 4; i < Math.min(bytes.length / 2, 400); i++) {
      bytes[i] = (byte) 0xA5;
    }
    Files.write(file, bytes);
    InvalidDataException e = null;
    try {
      table.ingest().parquet(file).commit();
    } catch (InvalidDataException thrown) {
      e = thrown;
    }
    assertThat(e).as("a corrupt page is bad input, not a storage failure").isNotNull();
    assertThat(e.getMessage()).startsWith("Cannot read Parquet file: " + file + ": corrupt data");
    assertThat(currentSnapshotId(table)).isEqualTo(snapshotBefore);
    assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
  }
}
