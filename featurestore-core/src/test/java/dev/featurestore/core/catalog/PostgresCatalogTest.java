package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg's JDBC catalog on a real PostgreSQL server: several writer processes, one table, every
 * commit lands exactly once. Runs when {@code FEATURESTORE_TEST_POSTGRES_URL}, {@code _USER} and
 * {@code _PASSWORD} are set ({@code .ci/run} starts a server on 127.0.0.1 and sets them); skips
 * otherwise.
 */
class PostgresCatalogTest {
  private static final int WRITERS = 2;
  private static final int COMMITS_PER_WRITER = 15;
  private static final int ROWS_PER_COMMIT = 10;

  @TempDir Path dir;
  private String url;
  private String user;
  private String password;

  @BeforeEach
  void needsPostgres() {
    url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    user = System.getenv("FEATURESTORE_TEST_POSTGRES_USER");
    password = System.getenv("FEATURESTORE_TEST_POSTGRES_PASSWORD");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
  }

  private FeatureStoreConfig.Builder store() {
    return FeatureStore.builder().jdbcCatalog(url, user, password).warehouseLocation(dir.resolve("warehouse").toString());
  }

  private static String uniqueNamespace() {
    return "pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
  }

  @Test
  void config_keepsPasswordOutOfToString() {
    FeatureStoreConfig config = FeatureStore.builder().jdbcCatalog(url, user, "s3cr3t-pw").root(dir).config();
    assertThat(config.toString()).doesNotContain("s3cr3t-pw").contains("catalog=jdbc jdbc:postgresql://");
    assertThat(config.catalogKind()).isEqualTo(FeatureStoreConfig.CatalogKind.JDBC);
  }

  @Test
  void journey_createIngestEvolveRollback_throughPostgres() {
    String table = uniqueNamespace() + ".features";
    try (FeatureStore store = store().build()) {
      FeatureTable features = store.createTable(TableDefinition.builder(table, schema()).build());
      long first = features.append(rows(1, 0, 5)).snapshotId().orElseThrow();
      features.evolveSchema().addColumn("extra", Types.StringType.get()).commit();
      features.append(rows(1, 1, 5));
      assertThat(features.query().count()).isEqualTo(10);
      features.snapshots().rollbackTo(first);
      assertThat(features.query().count()).isEqualTo(5);
    }
    // a second store (as another host would) sees the same table through the database
    try (FeatureStore other = store().build()) {
      assertThat(other.listTables()).extracting(Object::toString).contains(table);
      assertThat(other.table(table).query().count()).isEqualTo(5);
      assertThat(other.table(table).schema().findField("extra")).isNotNull();
      assertThat(other.dropTable(dev.featurestore.TableId.parse(table), true)).isTrue();
    }
  }

  @Test
  void twoWriterProcesses_appendConcurrently_everyCommitLandsExactlyOnce() throws Exception {
    String table = uniqueNamespace() + ".concurrent";
    Path warehouse = dir.resolve("warehouse");
    try (FeatureStore store = store().build()) {
      store.createTable(TableDefinition.builder(table, schema()).build());
    }

    long startAt = System.currentTimeMillis() + 4_000; // both JVMs are up by then; commits overlap
    List<ChildJvm> writers = new ArrayList<>();
    List<String> committed = new ArrayList<>();
    long attempts = 0;
    try {
      for (int w = 0; w < WRITERS; w++) {
        writers.add(ChildJvm.start(PostgresWriter.class, dir, table, warehouse.toString(), Integer.toString(w),
            Integer.toString(COMMITS_PER_WRITER), Integer.toString(ROWS_PER_COMMIT), Long.toString(startAt)));
      }
      for (ChildJvm writer : writers) {
        assertThat(writer.waitFor(Duration.ofSeconds(120)))
            .as("writer output: %s (stderr in %s)", writer.lines(), dir.resolve("child-stderr.log")).contains(0);
        List<String> output = writer.lines();
        output.stream().filter(l -> l.startsWith("COMMITTED ")).forEach(committed::add);
        attempts += output.stream().filter(l -> l.startsWith("ATTEMPTS "))
            .mapToLong(l -> Long.parseLong(l.substring("ATTEMPTS ".length()).trim())).sum();
      }
    } finally {
      for (ChildJvm writer : writers) {
        writer.close();
      }
    }
    int commits = WRITERS * COMMITS_PER_WRITER;
    assertThat(committed).hasSize(commits);

    try (FeatureStore store = store().build()) {
      FeatureTable features = store.table(table);
      List<SnapshotInfo> history = features.snapshots().history();
      assertThat(history).hasSize(commits);
      // every snapshot a writer reported is in the table's history: none lost, none twice
      Set<Long> reported = new HashSet<>();
      committed.forEach(l -> reported.add(Long.parseLong(l.split(" ")[3])));
      assertThat(reported).hasSize(commits);
      assertThat(history).extracting(SnapshotInfo::snapshotId).containsExactlyInAnyOrderElementsOf(reported);
      assertThat(features.query().count()).isEqualTo((long) commits * ROWS_PER_COMMIT);
      assertThat(features.stats().rows()).isEqualTo((long) commits * ROWS_PER_COMMIT);

      Set<String> batches = new HashSet<>();
      try (QueryResult rows = features.query().select("writer", "commit_no").execute()) {
        for (Row row : rows) {
          batches.add(row.get("writer") + "/" + row.get("commit_no"));
        }
      }
      assertThat(batches).hasSize(commits);
      System.out.printf("PostgreSQL catalog: %d writers x %d commits landed once each; %d commit attempts (%d optimistic retries)%n",
          WRITERS, COMMITS_PER_WRITER, attempts, attempts - commits);
      store.dropTable(features.id(), true);
    }
  }

  private static Schema schema() {
    return new Schema(
        Types.NestedField.required(1, "writer", Types.IntegerType.get()),
        Types.NestedField.required(2, "commit_no", Types.IntegerType.get()),
        Types.NestedField.required(3, "row_no", Types.IntegerType.get()),
        Types.NestedField.optional(4, "value", Types.DoubleType.get()));
  }

  private static List<java.util.Map<String, Object>> rows(int writer, int commit, int count) {
    List<java.util.Map<String, Object>> rows = new ArrayList<>();
    for (int r = 0; r < count; r++) {
      rows.add(java.util.Map.of("writer", writer, "commit_no", commit, "row_no", r, "value", r * 0.5));
    }
    return rows;
  }
}
