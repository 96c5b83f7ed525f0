package dev.featurestore.duckdb;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.Row;
import dev.featurestore.core.query.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Arrow batches carry exactly the rows and values the row and JDBC paths give. */
class DuckArrowTest {
  private static final String SQL = """
      SELECT entity_id, event_time, feature_a, feature_b,
             CAST(feature_a AS DECIMAL(18,3)) AS amount,
             'e' || entity_id AS label,
             CAST(event_time AS TIMESTAMP) AS local_time
      FROM ev""";

  @TempDir
  Path dir;

  FeatureStore store;
  SqlEngine sql;
  BufferAllocator allocator;
  FeatureTable events;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build();
    allocator = new RootAllocator();
    events = TestTables.createEvents(store, false);
    List<Record> rows = new ArrayList<>();
    OffsetDateTime t0 = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    for (int i = 0; i < 5_000; i++) {
      Double b = i % 3 == 0 ? null : i / 4.0;
      rows.add(event(events, i % 97, t0.plusSeconds(i * 37L).plusNanos(123_000).toString(), i / 8.0, b));
    }
    TestTables.append(events, rows);
  }

  @AfterEach
  void close() {
    sql.close();
    allocator.close(); // fails if a test leaked Arrow buffers
    store.close();
  }

  @Test
  void arrow_valuesAndRowCount_equalRowPath_includingNullsTimestampsAndDecimals() throws Exception {
    List<List<Object>> expected = new ArrayList<>();
    try (SqlResult result = sql.query(SQL).table("ev", events).execute()) {
      for (Row row : result) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < row.size(); i++) {
          values.add(row.get(i));
        }
        expected.add(values);
      }
    }
    List<List<Object>> actual = new ArrayList<>();
    int batches = 0;
    try (SqlResult result = sql.query(SQL).table("ev", events).execute();
         ArrowReader reader = result.arrow(allocator, 1_000)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getSchema().getFields()).extracting(f -> f.getName())
          .containsExactly("entity_id", "event_time", "feature_a", "feature_b", "amount", "label", "local_time");
      assertThat(root.getSchema().findField("amount").getType()).isEqualTo(new ArrowType.Decimal(18, 3, 128));
      while (reader.loadNextBatch()) {
        batches++;
        assertThat(root.getRowCount()).isLessThanOrEqualTo(1_000);
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> values = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            values.add(javaValue(vector, r));
          }
          actual.add(values);
        }
      }
      assertThat(result.stats().rowsReturned()).isEqualTo(5_000);
    }
    assertThat(batches).isGreaterThanOrEqualTo(5);
    assertThat(actual).hasSize(5_000);
    assertThat(sorted(actual)).isEqualTo(sorted(expected));
    assertThat(actual.stream().filter(r -> r.get(3) == null).count()).isEqualTo(1_667);
    assertThat(expected.get(0).get(4)).isInstanceOf(BigDecimal.class);
  }

  @Test
  void arrow_rowCountEqualsJdbcResultSet() throws Exception {
    String count = "SELECT entity_id, feature_b FROM ev WHERE feature_b IS NULL OR feature_b > 100";
    long viaJdbc = 0;
    try (SqlResult result = sql.query(count).table("ev", events).execute()) {
      java.sql.ResultSet rs = result.resultSet();
      while (rs.next()) {
        viaJdbc++;
      }
    }
    long viaArrow = 0;
    try (SqlResult result = sql.query(count).table("ev", events).execute();
         ArrowReader reader = result.arrow(allocator)) {
      while (reader.loadNextBatch()) {
        viaArrow += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    assertThat(viaArrow).isEqualTo(viaJdbc).isGreaterThan(1_667);
  }

  @Test
  void trainingSet_asArrow_equalsRows() throws Exception {
    TrainingSet set = sql.trainingSet()
        .labels(events.query().select("entity_id", "event_time"), "entity_id", "event_time")
        .features("ev", events.query(), "entity_id", "event_time", null, "feature_b")
        .build();
    List<Object> expected = set.toList().stream().map(r -> (Object) r.get("ev__feature_b")).toList();
    List<Object> actual = new ArrayList<>();
    try (SqlResult result = set.execute(); ArrowReader reader = result.arrow(allocator)) {
      while (reader.loadNextBatch()) {
        FieldVector vector = reader.getVectorSchemaRoot().getVector("ev__feature_b");
        for (int r = 0; r < vector.getValueCount(); r++) {
          actual.add(vector.getObject(r));
        }
      }
    }
    assertThat(actual).isEqualTo(expected); // ordered by entity and time on both paths
  }

  @Test
  void arrow_isSingleUse_andClosingTheResultReleasesAnUnclosedReader() throws Exception {
    SqlResult result = sql.query("SELECT entity_id FROM ev").table("ev", events).execute();
    ArrowReader reader = result.arrow(allocator);
    assertThat(reader.loadNextBatch()).isTrue();
    assertThatThrownBy(() -> result.arrow(allocator))
        .isExactlyInstanceOf(dev.featurestore.InvalidStateException.class)
        .hasMessage("Cannot read query result as Arrow: already read (a result is single-use)");
    result.close(); // the reader is left open on purpose: the result closes it, the allocator ends empty
    assertThatThrownBy(reader::loadNextBatch)
        .isExactlyInstanceOf(dev.featurestore.InvalidStateException.class)
        .hasMessage("Cannot read Arrow batches: reader is closed");
    reader.close(); // a second close is harmless
    assertThat(allocator.getAllocatedMemory()).isZero();
  }

  /** Arrow values in the row path's types. */
  private static Object javaValue(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof TimeStampMicroTZVector tz) {
      long micros = tz.get(row);
      return OffsetDateTime.ofInstant(java.time.Instant.EPOCH.plus(micros, ChronoUnit.MICROS), ZoneOffset.UTC);
    }
    Object value = vector.getObject(row);
    if (value instanceof Text text) {
      return text.toString();
    }
    if (value instanceof LocalDateTime time) {
      return time;
    }
    return value;
  }

  private static List<List<Object>> sorted(List<List<Object>> rows) {
    List<List<Object>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Object::toString));
    return copy;
  }
}
