package dev.featurestore.core.query;

import static dev.featurestore.core.query.TestTables.append;
import static dev.featurestore.core.query.TestTables.currentSnapshotId;
import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.featurestore.AlreadyExistsException;
import dev.featurestore.ExportResult;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.TimeTravelQuery;
import dev.featurestore.core.testing.LocalStoreTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExportTest extends LocalStoreTest {
  @TempDir Path out;
  private FeatureTable table;
  private List<DataFile> files;

  @BeforeEach
  void setUp() {
    table = TestTables.createEvents(store, true);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 48; id++) {
      String time = java.time.OffsetDateTime.parse("2026-01-01T00:00:00Z").plusHours(id).toString();
      rows.add(event(table, id, time, id / 10.0, null));
    }
    files = append(table, rows);
  }

  private static FileMetaData footer(Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return reader.getFileMetaData();
    }
  }

  private static List<Map<String, Object>> readBack(Path file, Schema schema) throws IOException {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = Parquet.read(org.apache.iceberg.Files.localInput(file.toFile()))
        .project(schema)
        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
        .build()) {
      for (Record record : records) {
        Map<String, Object> row = new java.util.LinkedHashMap<>();
        for (Types.NestedField field : schema.columns()) {
          row.put(field.name(), record.getField(field.name()));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  @Test
  void export_writesRowsAndLineageToFooter() throws IOException {
    Expression filter = Expressions.greaterThanOrEqual("feature_a", 3.0);
    TimeTravelQuery query = table.query().select("entity_id", "feature_a").filter(filter);
    Path file = out.resolve("slice.parquet");

    Instant before = Instant.now();
    ExportResult result = query.exportParquet(file);

    assertThat(file).exists();
    assertThat(result.location()).isEqualTo(file.toAbsolutePath().toString());
    assertThat(result.rows()).isEqualTo(18);
    assertThat(result.bytes()).isEqualTo(Files.size(file));
    long snapshotId = currentSnapshotId(table);
    assertThat(result.lineage().snapshotId()).isEqualTo(snapshotId);
    assertThat(result.lineage().columns()).containsExactly("entity_id", "feature_a");
    assertThat(result.lineage().filter()).isEqualTo(filter.toString());

    FileMetaData footer = footer(file);
    Map<String, String> meta = footer.getKeyValueMetaData();
    assertThat(meta).containsKey("featurestore.version");
    JsonNode lineage = new ObjectMapper().readTree(meta.get("featurestore.lineage"));
    assertThat(lineage.get("table").asText()).isEqualTo("features.feature_events");
    assertThat(lineage.get("snapshotId").asLong()).isEqualTo(snapshotId);
    assertThat(lineage.get("filter").asText()).isEqualTo(filter.toString());
    assertThat(lineage.get("columns")).extracting(JsonNode::asText).containsExactly("entity_id", "feature_a");
    assertThat(Instant.parse(lineage.get("exportedAt").asText())).isAfterOrEqualTo(before.minusSeconds(1));
    // Iceberg field ids survive: the file's schema maps back to the projected schema
    Schema fileSchema = ParquetSchemaUtil.convert(footer.getSchema());
    assertThat(fileSchema.findField("entity_id").fieldId()).isEqualTo(table.schema().findField("entity_id").fieldId());
    assertThat(footer.getSchema().getColumns()).hasSize(2);

    List<Map<String, Object>> expected;
    try (QueryResult rows = query.execute()) {
      expected = rows.toList();
    }
    assertThat(readBack(file, query.schema())).containsExactlyInAnyOrderElementsOf(expected).hasSize(18);
  }

  @Test
  void export_withoutFilter_recordsTrueAndAllColumns() throws IOException {
    ExportResult result = table.query().exportParquet(out.resolve("all.parquet"));
    assertThat(result.rows()).isEqualTo(48);
    assertThat(result.lineage().filter()).isEqualTo("true");
    assertThat(result.lineage().columns()).containsExactly("entity_id", "event_time", "feature_a", "feature_b");
    JsonNode lineage = new ObjectMapper().readTree(footer(out.resolve("all.parquet")).getKeyValueMetaData()
        .get("featurestore.lineage"));
    assertThat(lineage.get("filter").asText()).isEqualTo("true");
  }

  @Test
  void export_toExistingFile_fails() throws IOException {
    Path file = out.resolve("taken.parquet");
    Files.writeString(file, "keep me");
    assertThatThrownBy(() -> table.query().exportParquet(file))
        .isInstanceOf(AlreadyExistsException.class)
        .hasMessage("Cannot export: file already exists: " + file);
    assertThat(Files.readString(file)).isEqualTo("keep me");
  }

  @Test
  void export_failingRead_leavesNoFile() throws IOException {
    // the second day's file: the export has already written the first day's rows when it fails
    Files.delete(dev.featurestore.core.storage.LocalFileIO.toPath(files.get(1).location()));
    Path file = out.resolve("broken.parquet");
    assertThatThrownBy(() -> table.query().exportParquet(file)).isInstanceOf(FeatureStoreException.class);
    assertThat(file).doesNotExist();
    try (Stream<Path> left = Files.list(out)) {
      assertThat(left).isEmpty();
    }
  }
}
