package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.MetadataTable;
import dev.featurestore.MetricsListener;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.QueryResult;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.storage.s3.S3TestServer;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The operations log: what the store did, by whom, in the catalog database, never failing an operation. */
class OperationsLogTest {
  @RegisterExtension static S3TestServer s3 = new S3TestServer();
  @TempDir Path dir;

  @Test
  void everyKindOfWrite_isRecorded_withActorTimeAndWhatChanged() {
    TableId other = TableId.of("features", "other");
    try (FeatureStore store = FeatureStore.builder().root(dir).actor("alice@batch-7").build()) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      store.createTable(TableDefinition.builder(other, SyntheticFeatures.schema()).build());
      long first = table.ingest().synthetic(100, 1).commit().snapshotId().getAsLong();
      long second = table.ingest().synthetic(50, 2).commit().snapshotId().getAsLong();
      table.evolveSchema().addColumn("extra", Types.LongType.get(), null).commit();
      table.snapshots().createTag("v1", first);
      table.snapshots().rollbackTo(first);
      table.query().exportParquet(dir.resolve("slice.parquet"));
      table.maintenance().expireSnapshots().expireSnapshotId(second).execute();
      store.dropTable(other, true);

      List<Map<String, Object>> log = store.operations().toList();
      assertThat(log).extracting(r -> r.get("operation")).containsExactly("create_table", "create_table", "ingest",
          "ingest", "schema_change", "create_tag", "rollback", "export", "expire_snapshots", "drop_table");
      assertThat(log).extracting(r -> r.get("actor")).containsOnly("alice@batch-7");
      assertThat(log).extracting(r -> r.get("recorded_at")).allSatisfy(t -> assertThat(t).isInstanceOf(OffsetDateTime.class))
          .isSortedAccordingTo((a, b) -> ((OffsetDateTime) a).compareTo((OffsetDateTime) b));
      Map<String, Object> ingest = log.get(2);
      assertThat(ingest.get("table_name")).isEqualTo("features.feature_events");
      assertThat(ingest.get("snapshot_id")).isEqualTo(first);
      assertThat((String) ingest.get("details")).contains("\"rows\":100").contains("\"source\":\"synthetic\"");
      assertThat(log.get(6).get("snapshot_id")).isEqualTo(first);
      assertThat((String) log.get(8).get("details")).contains("\"expired_snapshot_ids\":[" + second + "]");
      assertThat(log.get(9).get("table_name")).isEqualTo("features.other");

      // per table: the metadata table, only that table's entries
      try (QueryResult own = table.metadata(MetadataTable.OPERATIONS)) {
        assertThat(own.schema().findField("recorded_at").type()).isEqualTo(Types.TimestampType.withZone());
        assertThat(own.toList()).hasSize(8).extracting(r -> r.get("table_name")).containsOnly("features.feature_events");
      }
    }
    // durable: in the catalog database, seen by the next store on it
    try (FeatureStore reopened = FeatureStore.openLocal(dir)) {
      assertThat(reopened.operations().toList()).hasSize(10);
    }
  }

  @Test
  void actor_defaultsToTheUserName() {
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      assertThat(store.config().actor()).isEqualTo(System.getProperty("user.name"));
      assertThat(store.operations().toList()).singleElement()
          .satisfies(r -> assertThat(r.get("actor")).isEqualTo(System.getProperty("user.name")));
    }
  }

  @Test
  void aFailedInsert_isAWarningAndAMetric_andTheOperationSucceeds() throws Exception {
    // a log table the store cannot insert into (a column it does not fill, NOT NULL without default)
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("catalog.db"));
         Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE featurestore_operations (recorded_at BIGINT, actor VARCHAR(255), operation VARCHAR(64),"
          + " table_name VARCHAR(300), snapshot_id BIGINT, details TEXT, required_elsewhere TEXT NOT NULL)");
    }
    List<String> notRecorded = Collections.synchronizedList(new ArrayList<>());
    MetricsListener listener = new MetricsListener() {
      @Override
      public void onOperationNotRecorded(String operation, String reason) {
        notRecorded.add(operation + ": " + reason);
      }
    };
    try (FeatureStore store = FeatureStore.builder().root(dir).metricsListener(listener).build()) {
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      long rows = table.ingest().synthetic(10, 1).commit().rows();

      assertThat(rows).isEqualTo(10);
      assertThat(table.query().count()).isEqualTo(10);
      assertThat(notRecorded).hasSize(2);
      assertThat(notRecorded.get(0)).startsWith("create_table: the catalog database failed (").contains("NOT NULL");
      assertThat(notRecorded.get(1)).startsWith("ingest: ");
      assertThat(store.operations().toList()).isEmpty();
    }
  }

  @Test
  void uploadsExportsAndDeletesThroughTheObjectBrowser_areRecorded() {
    try (FeatureStore store = FeatureStore.builder().root(dir).objectStorage(s3.b2ThroughGate()).actor("uploader").build()) {
      ObjectBrowser objects = store.objects();
      objects.stage("events.csv").from(new ByteArrayInputStream("a,b\n1,2\n".getBytes())).commit();
      FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      long snapshot = table.ingest().synthetic(20, 1).commit().snapshotId().getAsLong();
      table.query().select("entity_id").exportToBucket("slice");
      objects.delete("raw/events.csv", false);
      objects.delete("exports/slice.parquet", false);
      List<Map<String, Object>> log = store.operations().toList().stream()
          .filter(r -> !List.of("create_table", "ingest").contains(r.get("operation"))).toList();
      assertThat(log).extracting(r -> r.get("operation")).containsExactly("upload", "export", "delete_object", "delete_object");
      assertThat(log).extracting(r -> r.get("table_name")).containsExactly(null, "features.feature_events", null, null);
      assertThat((String) log.get(0).get("details")).contains("\"key\":\"raw/events.csv\"").contains("\"bytes\":8");
      assertThat(log.get(1).get("snapshot_id")).isEqualTo(snapshot);
      assertThat((String) log.get(1).get("details"))
          .contains("\"location\":\"s3://" + S3TestServer.BUCKET + "/exports/slice.parquet\"").contains("\"rows\":20");
      assertThat((String) log.get(2).get("details")).contains("\"key\":\"raw/events.csv\"");
      assertThat((String) log.get(3).get("details")).contains("\"key\":\"exports/slice.parquet\"");
    }
  }

  @Test
  void actor_hostileValues_areRefusedTyped() {
    assertThatThrownBy(() -> FeatureStore.builder().actor(" ")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set actor: is blank: ' '");
    assertThatThrownBy(() -> FeatureStore.builder().actor("bob\nINSERT")).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set actor: control characters are not allowed: 'bob\\u000aINSERT'");
    assertThatThrownBy(() -> FeatureStore.builder().actor("x".repeat(256))).isInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot set actor: longer than 255 characters: 256");
  }

  @Test
  void anActorWithQuotes_isStoredAsGiven_notAsSql() {
    String actor = "o'brien\"); DROP TABLE iceberg_tables; --";
    try (FeatureStore store = FeatureStore.builder().root(dir).actor(actor).build()) {
      store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      assertThat(store.operations().toList()).singleElement().satisfies(r -> assertThat(r.get("actor")).isEqualTo(actor));
      assertThat(store.listTables()).containsExactly(SyntheticFeatures.TABLE_ID);
    }
  }
}
