package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.QueryResult;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.StorageException;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The feature journey through an Iceberg REST catalog server running in the test JVM. */
class RestCatalogTest {
  private static final String TOKEN = "test-token-8e1f";

  @TempDir Path dir;
  private RestCatalogServer server;

  @BeforeEach
  void startServer() throws Exception {
    server = RestCatalogServer.start(dir, TOKEN);
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close();
  }

  private FeatureStoreConfig.Builder store() {
    return FeatureStore.builder().restCatalog(server.uri()).catalogProperty("token", TOKEN);
  }

  @Test
  void journey_createIngestEvolveQueryRollback_throughRestCatalog() {
    try (FeatureStore store = store().build()) {
      assertThat(store.unwrap(Catalog.class)).isInstanceOf(RESTCatalog.class);
      FeatureTable events = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
              .partitionBy(s -> PartitionSpec.builderFor(s).day("event_time").build())
              .build());
      assertThat(events.location()).startsWith(dir.resolve("warehouse").toString());

      IngestResult first = events.ingest().synthetic(1_000, 1).commit();
      IngestResult second = events.ingest().synthetic(500, 2).commit();
      events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean").commit();
      events.ingest().synthetic(250, 3).commit();

      assertThat(events.query().count()).isEqualTo(1_750);
      assertThat(events.schema().findField("feature_c")).isNotNull();
      List<SnapshotInfo> history = events.snapshots().history();
      assertThat(history).extracting(SnapshotInfo::addedRows).containsExactly(1_000L, 500L, 250L);

      // time travel: the first snapshot, with the schema it had
      try (QueryResult rows = events.query().asOfSnapshot(first.snapshotId().orElseThrow()).execute()) {
        assertThat(rows.schema().findField("feature_c")).isNull();
        long count = 0;
        for (var ignored : rows) {
          count++;
        }
        assertThat(count).isEqualTo(1_000);
      }
      assertThat(events.query().filter(Expressions.greaterThan("feature_a", 1.0)).count())
          .isLessThan(1_750);

      events.snapshots().rollbackTo(second.snapshotId().orElseThrow());
      assertThat(events.query().count()).isEqualTo(1_500);
    }

    // another client of the same server sees the table as it was left
    try (FeatureStore other = store().build()) {
      FeatureTable events = other.table(SyntheticFeatures.TABLE_ID);
      assertThat(events.query().count()).isEqualTo(1_500);
      assertThat(events.stats().snapshots()).isEqualTo(3);
      assertThat(other.listTables()).containsExactly(SyntheticFeatures.TABLE_ID);
      assertThat(other.dropTable(SyntheticFeatures.TABLE_ID, true)).isTrue();
      assertThatThrownBy(() -> other.table(SyntheticFeatures.TABLE_ID)).isInstanceOf(TableNotFoundException.class);
    }
    // the client reported its scans and commits to the server, as the protocol allows
    assertThat(server.metricsReports()).isGreaterThan(0);
    assertThat(Files.exists(dir.resolve("warehouse"))).isTrue();
  }

  @Test
  void open_withoutToken_failsNamingTheCatalog() {
    assertThatThrownBy(() -> FeatureStore.builder().restCatalog(server.uri()).build())
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot open REST catalog: " + server.uri() + ": ")
        .hasMessageContaining("Not authorized");
  }

  @Test
  void config_printsCatalogPropertyKeysOnly() {
    FeatureStoreConfig config = store().config();
    assertThat(config.catalogKind()).isEqualTo(FeatureStoreConfig.CatalogKind.REST);
    assertThat(config.toString()).contains("catalog=rest " + server.uri()).contains("token").doesNotContain(TOKEN);
  }

  @Test
  void restCatalog_withNonHttpUri_isRejected() {
    assertThatThrownBy(() -> FeatureStore.builder().restCatalog("thrift://metastore:9083"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set REST catalog: URI is not http(s): thrift://metastore:9083");
  }
}
