package dev.featurestore.core.base;

import static dev.featurestore.core.query.TestTables.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.ReadVersion;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.core.query.TestTables;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One resolver of snapshot id / time / tag / branch / current, shared by every reader (core queries, DuckDB). */
class VersionResolverTest {
  @TempDir
  Path dir;

  FeatureStore store;
  FeatureTable events;
  Table table;

  @BeforeEach
  void open() {
    store = FeatureStore.openLocal(dir.resolve("store"));
    events = TestTables.createEvents(store, false);
    table = events.unwrap(Table.class);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void emptyTable_current_hasNoSnapshot_andTheTableSchema() {
    VersionResolver.Resolved resolved = VersionResolver.resolve(events.id(), table, ReadVersion.current());
    assertThat(resolved.snapshot()).isNull();
    assertThat(resolved.snapshotId()).isEqualTo(-1L);
    assertThat(resolved.schema().sameSchema(table.schema())).isTrue();
  }

  @Test
  void everyKind_resolves_andUnknownOnesFail_withTheSameMessages() {
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    long first = TestTables.currentSnapshotId(events);
    events.snapshots().createTag("v1", first);
    TestTables.append(events, List.of(event(events, 2, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    long second = TestTables.currentSnapshotId(events);
    assertThat(VersionResolver.resolve(events.id(), table, ReadVersion.current()).snapshotId()).isEqualTo(second);
    assertThat(VersionResolver.resolve(events.id(), table, ReadVersion.snapshot(first)).snapshotId()).isEqualTo(first);
    assertThat(VersionResolver.resolve(events.id(), table, ReadVersion.ref("v1")).snapshotId()).isEqualTo(first);
    assertThat(VersionResolver.resolve(events.id(), table, ReadVersion.ref("main")).snapshotId()).isEqualTo(second);
    assertThatThrownBy(() -> VersionResolver.resolve(events.id(), table, ReadVersion.snapshot(42)))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown snapshot id: 42");
    assertThatThrownBy(() -> VersionResolver.resolve(events.id(), table, ReadVersion.ref("nope")))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: unknown ref: nope");
    assertThatThrownBy(() -> VersionResolver.resolve(events.id(), table, ReadVersion.asOf(Instant.parse("2000-01-01T00:00:00Z"))))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: time is before the first snapshot: 2000-01-01T00:00:00Z");
  }

  @Test
  void extremeTimes_resolveWithoutArithmeticOverflow() {
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    long current = TestTables.currentSnapshotId(events);
    assertThat(VersionResolver.resolve(events.id(), table, ReadVersion.asOf(Instant.MAX)).snapshotId()).isEqualTo(current);
    assertThatThrownBy(() -> VersionResolver.resolve(events.id(), table, ReadVersion.asOf(Instant.MIN)))
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: time is before the first snapshot: "
            + "-1000000000-01-01T00:00:00Z");
  }

  @Test
  void tableQuery_asOfExtremeTimes_isTyped() {
    TestTables.append(events, List.of(event(events, 1, "2026-01-01T10:00:00Z", 1.0, 2.0)));
    assertThat(events.query().asOf(Instant.MAX).count()).isEqualTo(1);
    assertThatThrownBy(() -> events.query().asOf(Instant.MIN).count())
        .isExactlyInstanceOf(SnapshotNotFoundException.class)
        .hasMessage("Cannot read table features.feature_events: time is before the first snapshot: "
            + "-1000000000-01-01T00:00:00Z");
  }

  @Test
  void readVersion_describesItself_andChecksItsParts() {
    assertThat(ReadVersion.current()).hasToString("current");
    assertThat(ReadVersion.snapshot(7)).hasToString("snapshot 7");
    assertThat(ReadVersion.asOf(Instant.EPOCH)).hasToString("as of 1970-01-01T00:00:00Z");
    assertThat(ReadVersion.ref("v1")).hasToString("ref v1");
    assertThatThrownBy(() -> ReadVersion.ref(null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot read ref: ref is null: null");
    assertThatThrownBy(() -> ReadVersion.asOf(null)).isExactlyInstanceOf(InvalidArgumentException.class)
        .hasMessage("Cannot read as of time: time is null: null");
  }
}
