package dev.featurestore.core.ingest;

import static dev.featurestore.core.ingest.IngestTestSupport.currentSnapshotId;
import static dev.featurestore.core.ingest.IngestTestSupport.dataFilesOnDisk;
import static dev.featurestore.core.ingest.IngestTestSupport.events;
import static dev.featurestore.core.ingest.IngestTestSupport.iceberg;
import static dev.featurestore.core.ingest.IngestTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IngestSchemaEvolutionTest {
  @TempDir Path dir;
  FeatureStore store;
  FeatureTable table;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    table = store.createTable(events());
  }

  @AfterEach
  void close() {
    store.close();
  }

  private TableMetadata metadata() {
    return ((HasTableOperations) iceberg(table)).operations().current();
  }

  @Test
  void csv_newColumnsMidFile_addedInTheSameCommit() throws Exception {
    Path file = Files.writeString(dir.resolve("e.csv"),
        "entity_id,event_time,feature_a,clicks,country\n"
            + "1,2024-01-01T00:00:00Z,0.5,,\n"
            + "2,2024-01-02T00:00:00Z,1.5,7,\n"
            + "3,2024-01-01T00:00:00Z,2.5,8,de\n");
    int metadataFilesBefore = metadata().previousFiles().size();

    IngestResult result = table.ingest().csv(file).autoEvolveSchema(true).commit();

    assertThat(result.addedColumns()).containsExactly("clicks", "country");
    assertThat(result.rows()).isEqualTo(3);
    assertThat(table.schema().findField("clicks").type()).isEqualTo(Types.LongType.get());
    assertThat(table.schema().findField("clicks").isOptional()).isTrue();
    assertThat(table.schema().findField("country").type()).isEqualTo(Types.StringType.get());
    // one catalog commit: one new metadata file, one snapshot
    assertThat(metadata().previousFiles().size()).isEqualTo(metadataFilesBefore + 1);
    assertThat(IngestTestSupport.snapshotCount(table)).isEqualTo(1);
    List<Record> rows = read(table);
    assertThat(rows).extracting(r -> r.getField("clicks")).containsExactly(null, 7L, 8L);
    assertThat(rows).extracting(r -> r.getField("country")).containsExactly(null, null, "de");
    assertThat(rows).extracting(r -> r.getField("feature_a")).containsExactly(0.5, 1.5, 2.5);
  }

  /** The column-name rules of {@code evolveSchema().addColumn} hold for columns an ingest adds. */
  @Test
  void autoEvolve_refusesCaseCollisionsAndReservedNames_tableUnchanged() throws Exception {
    long before = currentSnapshotId(table);
    Path caseClash = Files.writeString(dir.resolve("case.csv"),
        "entity_id,event_time,Feature_A\n1,2024-01-01T00:00:00Z,0.5\n");
    assertThatThrownBy(() -> table.ingest().csv(caseClash).autoEvolveSchema(true).commit())
        .isInstanceOf(ValidationException.class)
        .hasMessage("Cannot ingest into table " + table.id()
            + ": column name differs only by case from column feature_a: Feature_A");
    Path reserved = Files.writeString(dir.resolve("pos.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\", \"_pos\": null}\n");
    assertThatThrownBy(() -> table.ingest().json(reserved).autoEvolveSchema(true).commit())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot ingest into table " + table.id() + ": column name is reserved by Iceberg: _pos");
    assertThat(currentSnapshotId(table)).isEqualTo(before);
    assertThat(table.schema().findField("Feature_A")).isNull();
    assertThat(dataFilesOnDisk(table)).isEmpty();
  }

  @Test
  void json_newColumnMidFile_typeFromFirstValue_nullOnlyColumnIsString() throws Exception {
    Path file = Files.writeString(dir.resolve("e.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\", \"note\": null}\n"
            + "{\"entity_id\": 2, \"event_time\": \"2024-01-01T00:00:00Z\", \"score\": 1.25, \"active\": true}\n"
            + "{\"entity_id\": 3, \"event_time\": \"2024-01-03T00:00:00Z\", \"score\": 2}\n");

    IngestResult result = table.ingest().json(file).autoEvolveSchema(true).commit();

    assertThat(result.addedColumns()).containsExactly("score", "active", "note");
    assertThat(table.schema().findField("score").type()).isEqualTo(Types.DoubleType.get());
    assertThat(table.schema().findField("active").type()).isEqualTo(Types.BooleanType.get());
    assertThat(table.schema().findField("note").type()).isEqualTo(Types.StringType.get());
    List<Record> rows = read(table);
    assertThat(rows).extracting(r -> r.getField("score")).containsExactly(null, 1.25, 2.0);
    assertThat(rows).extracting(r -> r.getField("active")).containsExactly(null, true, null);
    assertThat(rows).extracting(r -> r.getField("note")).containsExactly(null, null, null);
  }

  @Test
  void rows_newColumnThenWrongType_failsAndLeavesSchemaUnchanged() {
    List<java.util.Map<String, Object>> rows = List.of(
        java.util.Map.of("entity_id", 1, "event_time", "2024-01-01T00:00:00Z", "clicks", 3),
        java.util.Map.of("entity_id", 2, "event_time", "2024-01-01T00:00:00Z", "clicks", "many"));
    assertThatThrownBy(() -> table.ingest().rows(rows).autoEvolveSchema(true).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 2: column clicks expects long: \"many\"");
    assertThat(table.schema().findField("clicks")).isNull();
    assertThat(iceberg(table).schema().findField("clicks")).isNull();
    assertThat(currentSnapshotId(table)).isEqualTo(-1);
    assertThat(dataFilesOnDisk(table)).isEmpty();
  }

  @Test
  void autoEvolveOff_unknownColumn_failsTyped_tableUnchanged() throws Exception {
    table.ingest().synthetic(100, 1).commit();
    long before = currentSnapshotId(table);
    List<Path> filesBefore = dataFilesOnDisk(table);
    Path file = Files.writeString(dir.resolve("e.jsonl"),
        "{\"entity_id\": 1, \"event_time\": \"2024-01-01T00:00:00Z\"}\n"
            + "{\"entity_id\": 2, \"event_time\": \"2024-01-01T00:00:00Z\", \"score\": 1.25}\n");

    assertThatThrownBy(() -> table.ingest().json(file).commit())
        .isInstanceOf(InvalidDataException.class)
        .hasMessage("Cannot ingest row 2: unknown column: score");

    assertThat(currentSnapshotId(table)).isEqualTo(before);
    assertThat(iceberg(table).schema().columns()).hasSize(4);
    assertThat(dataFilesOnDisk(table)).isEqualTo(filesBefore);
  }
}
