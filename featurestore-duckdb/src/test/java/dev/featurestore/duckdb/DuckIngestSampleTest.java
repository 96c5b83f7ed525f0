package dev.featurestore.duckdb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.core.base.FileIngestEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine samples the format of each timestamp column from the CSV's first record, read from a
 * copy of the file's header and first record (DuckDB's reader takes whole buffers of the file even
 * for one row); a first record beyond the copied bytes is sampled from the file itself.
 */
class DuckIngestSampleTest {
  private static final String FORMAT_CHECK = "strftime(\"__featurestore_partition_typed_1\", '%Y-%m-%dT%H:%M:%S.%fZ')";

  @TempDir Path dir;

  @Test
  void headOf_copiesTheHeaderAndTheFirstRecord_throughAQuotedLineBreak() throws Exception {
    Path csv = write("s,t\n\"a\nb\",2026-11-20T01:02:03.123456Z\nc,2026-11-21T01:02:03.123456Z\n");

    Path head = DuckIngestEngine.IngestSql.headOf(csv, dir);

    assertThat(head).isNotNull();
    assertThat(Files.readString(head)).isEqualTo("s,t\n\"a\nb\",2026-11-20T01:02:03.123456Z\n");
  }

  @Test
  void headOf_withoutTheFirstRecordsEndInTheFirstMebibyte_isNull() throws Exception {
    Path csv = write("s,t\n" + "x".repeat(DuckIngestEngine.IngestSql.HEAD_BYTES) + ",2026-11-20T01:02:03.123456Z\n");

    assertThat(DuckIngestEngine.IngestSql.headOf(csv, dir)).isNull();
  }

  @Test
  void sampledFormat_fromTheHead_checksTimestampsByFormattingThemBack() throws Exception {
    Path csv = write("s,t\nx,2026-11-20T01:02:03.123456Z\ny,2026-11-21T01:02:03.123456Z\n");

    String sql = copyStatement(csv);

    assertThat(sql).contains(FORMAT_CHECK);
    assertThat(dir.resolve("out").resolve("head.csv")).doesNotExist();
  }

  @Test
  void sampledFormat_ofAFirstRecordLongerThanTheHead_comesFromTheFile() throws Exception {
    Path csv = write("s,t\n" + "x".repeat(DuckIngestEngine.IngestSql.HEAD_BYTES) + ",2026-11-20T01:02:03.123456Z\n");

    assertThat(copyStatement(csv)).contains(FORMAT_CHECK);
  }

  private String copyStatement(Path csv) throws Exception {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "s", Types.StringType.get()),
        Types.NestedField.optional(2, "t", Types.TimestampType.withZone()));
    Path out = Files.createDirectories(dir.resolve("out"));
    FileIngestEngine.Request request = new FileIngestEngine.Request(FileIngestEngine.Format.CSV, csv, List.of("s", "t"),
        schema, PartitionSpec.unpartitioned(), out, "zstd", OptionalInt.empty(), 512L << 20, java.util.Set.of());
    DuckIngestEngine.IngestSql plan = new DuckIngestEngine.IngestSql(request, Map.of());
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:")) {
      plan.sampleTimestampFormats(connection);
    }
    return plan.copy();
  }

  private Path write(String text) throws Exception {
    Path csv = dir.resolve("events.csv");
    Files.write(csv, text.getBytes(StandardCharsets.UTF_8));
    return csv;
  }
}
