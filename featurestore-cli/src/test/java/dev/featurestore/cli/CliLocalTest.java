package dev.featurestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.RefInfo;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read commands as real processes against one local store built here with the API: every
 * {@code --output json} answer parsed and compared with what the API says; the table output, the
 * SQL formats and the sandbox; failures (missing store, unknown table, bad arguments, a conflict)
 * with their exit status and message and no stack trace unless {@code --verbose}.
 */
class CliLocalTest {
  static final TableId EVENTS = SyntheticFeatures.TABLE_ID;
  static final TableId OTHER = TableId.of("other", "small");

  @TempDir static Path dir;
  static Path root;
  static long first;
  static long second;
  static final int READS = 13;
  static final int FAILURES = 13;
  static List<Cli.Result> results;

  @BeforeAll
  static void buildStore() {
    root = dir.resolve("store");
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable events = store.createTable(TableDefinition.builder(EVENTS, SyntheticFeatures.schema())
          .partitionBy(s -> PartitionSpec.builderFor(s).bucket("entity_id", 4).build()).build());
      first = events.ingest().synthetic(1000, 1).commit().snapshotId().orElseThrow();
      events.snapshots().createTag("v1", first);
      events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean").commit();
      second = events.ingest().synthetic(500, 2).commit().snapshotId().orElseThrow();
      FeatureTable other = store.createTable(TableDefinition.builder(OTHER,
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get()))).build());
      other.append(List.of(Map.of("id", 1L), Map.of("id", 2L)));
    }
    Path parquet = dir.resolve("result.parquet");
    Path report = dir.resolve("report.html");
    Path missing = dir.resolve("no-such-store");
    List<List<String>> reads = List.of(
        cmd("tables", "--output", "json"),
        cmd("describe", EVENTS.toString(), "--output", "json"),
        cmd("history", EVENTS.toString(), "--output", "json"),
        cmd("schema", EVENTS.toString(), "--all", "--output", "json"),
        cmd("files", EVENTS.toString(), "--output", "json"),
        cmd("sql", "SELECT count(*) AS n, sum(entity_id) AS s FROM feature_events", "--output", "json"),
        cmd("sql", "SELECT count(*) AS n FROM feature_events", "--as-of", "v1", "--output", "csv"),
        cmd("sql", "SELECT count(*) AS n FROM e", "--table", "e=" + EVENTS + "@" + first),
        cmd("sql", "SELECT entity_id FROM feature_events", "--output", "parquet", "--out", parquet.toString()),
        cmd("history", EVENTS.toString()),
        cmd("report", EVENTS.toString(), "--out", report.toString()),
        cmd("cdc", "status", EVENTS.toString(), "--output", "json"),
        cmd("schema", OTHER.toString()));
    List<List<String>> failures = List.of(
        List.of("--root", missing.toString(), "history", EVENTS.toString()),
        cmd("describe", "nope.nope"),
        cmd("history", EVENTS.toString(), "--bogus"),
        cmd("tag", EVENTS.toString(), "v1"),
        cmd("sql", "SELECT * FROM read_csv('/etc/passwd')"),
        cmd("sql", "SELEC 1"),
        cmd("objects", "ls"),
        cmd("files", EVENTS.toString(), "--snapshot", "42"),
        cmd("expire", EVENTS.toString(), "--older-than", "soon"),
        List.of("history", EVENTS.toString()),
        cmd("rollback", EVENTS.toString()),
        cmd("report", EVENTS.toString(), "--out", report.toString()),
        cmd("objects", "ls", "--output", "yaml"));
    List<List<String>> all = new ArrayList<>(reads);
    all.addAll(failures);
    all.add(List.of());
    all.add(List.of("completion"));
    results = new Cli(dir).batch(all); // one JVM for every command of this class but the one through main
  }

  private static List<String> cmd(String... args) {
    List<String> c = new ArrayList<>(List.of("--root", root.toString()));
    c.addAll(List.of(args));
    return c;
  }

  @Test
  void readCommands_answerAsTheApiDoes() throws Exception {
    List<Cli.Result> r = results.subList(0, READS);
    Path parquet = dir.resolve("result.parquet");
    Path report = dir.resolve("report.html");
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      FeatureTable events = store.table(EVENTS);
      r.forEach(Cli.Result::succeeded);

      JsonNode tables = r.get(0).json();
      assertThat(tables).hasSize(2);
      assertThat(texts(tables, "table")).containsExactly(store.listTables().stream().map(TableId::toString).toArray(String[]::new));
      assertThat(tables.get(0).get("snapshot_id").asLong()).isEqualTo(events.snapshots().current().orElseThrow().snapshotId());
      assertThat(tables.get(0).get("total_rows").asLong()).isEqualTo(1500);

      JsonNode d = r.get(1).json();
      assertThat(d.get("table").asText()).isEqualTo(EVENTS.toString());
      assertThat(d.get("location").asText()).isEqualTo(events.location());
      assertThat(d.get("schema_id").asInt()).isEqualTo(events.schema().schemaId());
      List<String> fields = new ArrayList<>();
      d.get("schema").forEach(f -> fields.add(f.get("id").asInt() + ":" + f.get("name").asText() + ":" + f.get("type").asText()));
      assertThat(fields).containsExactlyElementsOf(events.schema().columns().stream()
          .map(f -> f.fieldId() + ":" + f.name() + ":" + f.type()).toList());
      JsonNode spec = d.get("partition_spec").get(0);
      assertThat(spec.get("source").asText()).isEqualTo("entity_id");
      assertThat(spec.get("transform").asText()).isEqualTo(events.spec().fields().get(0).transform().toString());
      assertThat(spec.get("field_id").asInt()).isEqualTo(events.spec().fields().get(0).fieldId());
      Map<String, String> props = new TreeMap<>();
      d.get("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
      assertThat(props).isEqualTo(new TreeMap<>(events.properties()));
      assertThat(d.get("current_snapshot").get("snapshot_id").asLong()).isEqualTo(second);
      List<String> refs = new ArrayList<>();
      d.get("refs").forEach(x -> refs.add(x.get("name").asText() + ":" + x.get("type").asText() + ":" + x.get("snapshot_id").asLong()));
      assertThat(refs).containsExactlyInAnyOrderElementsOf(events.snapshots().refInfos().stream()
          .map(x -> x.name() + ":" + (x.type() == RefInfo.Type.TAG ? "tag" : "branch") + ":" + x.snapshotId()).toList());

      JsonNode history = r.get(2).json();
      List<SnapshotInfo> api = events.snapshots().history();
      assertThat(history).hasSize(api.size());
      for (int i = 0; i < api.size(); i++) {
        SnapshotInfo s = api.get(i);
        JsonNode h = history.get(i);
        assertThat(h.get("snapshot_id").asLong()).isEqualTo(s.snapshotId());
        assertThat(h.get("parent_id").isNull() ? null : h.get("parent_id").asLong())
            .isEqualTo(s.parentId().isPresent() ? s.parentId().getAsLong() : null);
        assertThat(h.get("timestamp").asText()).isEqualTo(s.timestamp().toString());
        assertThat(h.get("operation").asText()).isEqualTo(s.operation());
        assertThat(h.get("added_rows").asLong()).isEqualTo(s.addedRows());
        assertThat(h.get("total_rows").asLong()).isEqualTo(s.totalRows());
        assertThat(h.get("added_bytes").asLong()).isEqualTo(s.addedBytes());
        assertThat(h.get("current").asBoolean()).isEqualTo(s.current());
      }

      JsonNode schemas = r.get(3).json();
      List<String> all = new ArrayList<>();
      schemas.forEach(f -> all.add(f.get("schema_id").asInt() + ":" + f.get("name").asText() + ":" + f.get("current").asBoolean()));
      assertThat(all).contains("0:feature_b:false", "1:feature_c:true").doesNotContain("0:feature_c:false");

      JsonNode files = r.get(4).json();
      long records = 0;
      for (JsonNode f : files) {
        records += f.get("records").asLong();
        assertThat(Path.of(java.net.URI.create(f.get("path").asText().startsWith("/") ? "file://" + f.get("path").asText()
            : f.get("path").asText()))).exists();
        assertThat(f.get("partition").asText()).startsWith("entity_id_bucket=");
      }
      assertThat(records).isEqualTo(1500);

      JsonNode count = r.get(5).json().get(0);
      assertThat(count.get("n").asLong()).isEqualTo(events.query().count());
      long sum = 0;
      try (var rows = events.query().select("entity_id").execute()) {
        for (var row : rows) {
          sum += (Long) row.get("entity_id");
        }
      }
      assertThat(count.get("s").asLong()).isEqualTo(sum);
      assertThat(r.get(6).out()).isEqualTo("n\n1000\n");
      assertThat(r.get(7).out()).isEqualTo("   n\n1000\n");
      assertThat(Files.readAllBytes(parquet)).startsWith('P', 'A', 'R', '1');
      assertThat(r.get(8).err()).contains("wrote 1500 rows");

      String table = r.get(9).out();
      assertThat(table.lines().findFirst().orElseThrow()).contains("snapshot_id", "parent_id", "added_rows", "total_rows");
      assertThat(table).contains(Long.toString(first), Long.toString(second));
      assertThat(table.lines()).hasSize(3);

      assertThat(Files.readString(report)).startsWith("<!DOCTYPE html>").contains("id=\"rows-" + EVENTS + "\"");
      assertThat(r.get(11).json().get("marks")).isEmpty();
      assertThat(r.get(12).out()).isEqualTo("""
          schema_id  current  id  name  type  required  doc
                  0  true      1  id    long  true
          """);
      r.forEach(x -> assertThat(x.err()).as("stderr of %s", x.args()).doesNotContain("\tat ", "Exception"));
    }
  }

  @Test
  void failures_exitByClass_withTheLibrarysMessage() {
    Path missing = dir.resolve("no-such-store");
    List<Cli.Result> r = results.subList(READS, READS + FAILURES);
    assertThat(r.get(0).exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.get(0).err()).isEqualTo("featurestore: Cannot open store: no catalog file, pass the root of an existing store: "
        + missing.toAbsolutePath().resolve("catalog.db") + "\n");
    assertThat(missing).doesNotExist();
    assertThat(r.get(1).exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.get(1).err()).isEqualTo("featurestore: Cannot load table: table does not exist: nope.nope\n");
    assertThat(r.get(2).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(2).err()).startsWith("featurestore: Unknown option: '--bogus'").contains("Try 'featurestore history --help'");
    assertThat(r.get(3).exit()).isEqualTo(ExitCodes.CONFLICT);
    assertThat(r.get(3).err()).isEqualTo("featurestore: Cannot create tag: ref already exists: v1\n");
    assertThat(r.get(4).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(4).err()).isEqualTo("featurestore: Cannot run query: table function not allowed: read_csv\n");
    assertThat(r.get(5).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(5).err()).startsWith("featurestore: Cannot run query: invalid SQL: syntax error at or near \"SELEC\"");
    assertThat(r.get(6).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(6).err()).isEqualTo("featurestore: Cannot browse objects: the store is on local disk, not object storage: "
        + root + "\n");
    assertThat(r.get(7).exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(r.get(8).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(8).err()).startsWith("featurestore: Invalid value for option '--older-than': expected a duration");
    assertThat(r.get(9).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(9).err()).isEqualTo(
        "featurestore: Cannot open store: no store root: pass --root <dir> or set FEATURESTORE_ROOT\n");
    assertThat(r.get(10).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(10).err()).startsWith("featurestore: Error: Missing required argument (specify one of these): (--to=SNAPSHOT_ID | --to-time=TIME)");
    assertThat(r.get(11).exit()).isEqualTo(ExitCodes.CONFLICT);
    assertThat(r.get(11).err()).isEqualTo("featurestore: Cannot write file: already exists (never replaced): "
        + dir.resolve("report.html") + "\n");
    assertThat(r.get(12).exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(r.get(12).err()).startsWith("featurestore: Invalid value for option '--output': expected one of [table, json]");
    r.forEach(x -> assertThat(x.out()).as("stdout of %s", x.args()).isEmpty());
    r.forEach(x -> assertThat(x.err()).as("stderr of %s", x.args()).doesNotContain("\tat "));
  }

  @Test
  void usageAndCompletion() {
    Cli.Result usage = results.get(READS + FAILURES);
    assertThat(usage.exit()).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(usage.out()).isEmpty();
    assertThat(usage.err()).contains("Usage: featurestore", "Exit status:");
    Cli.Result completion = results.get(READS + FAILURES + 1).succeeded();
    assertThat(completion.out()).contains("complete", "featurestore", "history", "--output");
  }

  @Test
  void mainProcess_exitsWithTheStatus_andPrintsTheTraceOnlyWhenVerbose() {
    Cli.Result verbose = new Cli(dir).run("--root", root.toString(), "describe", "nope.nope", "--verbose");
    assertThat(verbose.exit()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(verbose.out()).isEmpty();
    assertThat(verbose.err()).startsWith("featurestore: Cannot load table: table does not exist: nope.nope\n")
        .contains("dev.featurestore.TableNotFoundException", "\tat ");
  }

  private static List<String> texts(JsonNode array, String field) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.get(field).asText()));
    return out;
  }
}
