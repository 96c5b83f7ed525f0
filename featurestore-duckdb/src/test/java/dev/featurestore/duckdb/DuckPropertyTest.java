package dev.featurestore.duckdb;

import dev.featurestore.core.query.TestTables;
import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random histories of appends, schema changes (add, rename, promote, drop), positional and
 * equality deletes and rollbacks; then every snapshot (and the current state) read through the
 * adapter equals Iceberg's generic reader (the core library's query), row for row.
 */
class DuckPropertyTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void everySnapshot_matchesIcebergReader(long seed) {
    Random random = new Random(seed);
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store-" + seed));
         SqlEngine sql = DuckQueries.builder(store).threads(1).memoryLimit("512MB").build()) {
      FeatureTable table = TestTables.createEvents(store, false);
      Table iceberg = table.unwrap(Table.class);
      Set<Long> snapshots = new LinkedHashSet<>();
      List<String> log = new ArrayList<>();
      int names = 0;
      for (int step = 0; step < 24; step++) {
        iceberg.refresh();
        int op = step < 2 ? 0 : random.nextInt(10);
        List<DataFile> liveFiles = new ArrayList<>();
        if (iceberg.currentSnapshot() != null) {
          iceberg.newScan().planFiles().forEach(t -> liveFiles.add(t.file()));
        }
        Schema schema = iceberg.schema();
        List<Types.NestedField> optional = schema.columns().stream().filter(Types.NestedField::isOptional).toList();
        if (op <= 3) {
          int n = 1 + random.nextInt(40);
          List<Record> records = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            records.add(randomRecord(schema, random));
          }
          TestTables.append(table, records);
          log.add("append " + n);
        } else if (op == 4) {
          Type type = switch (random.nextInt(3)) {
            case 0 -> Types.IntegerType.get();
            case 1 -> Types.FloatType.get();
            default -> Types.StringType.get();
          };
          table.evolveSchema().addColumn("f" + names++, type).commit();
          log.add("add column " + type);
        } else if (op == 5 && !optional.isEmpty()) {
          Types.NestedField field = optional.get(random.nextInt(optional.size()));
          String newName = "r" + names++;
          table.evolveSchema().renameColumn(field.name(), newName).commit();
          log.add("rename " + field.name() + " -> " + newName);
        } else if (op == 6 && !optional.isEmpty()) {
          Types.NestedField field = optional.get(random.nextInt(optional.size()));
          if (field.type().typeId() == Type.TypeID.INTEGER) {
            table.evolveSchema().widenColumn(field.name(), Types.LongType.get()).commit();
            log.add("promote " + field.name());
          } else if (field.type().typeId() == Type.TypeID.FLOAT) {
            table.evolveSchema().widenColumn(field.name(), Types.DoubleType.get()).commit();
            log.add("promote " + field.name());
          } else if (optional.size() > 1) {
            table.evolveSchema().dropColumn(field.name()).commit();
            log.add("drop " + field.name());
          }
        } else if (op == 7 && !liveFiles.isEmpty()) {
          DataFile file = liveFiles.get(random.nextInt(liveFiles.size()));
          long[] positions = random.longs(1 + random.nextInt(3), 0, file.recordCount()).distinct().toArray();
          TestTables.positionDelete(table, file, positions);
          log.add("position delete " + positions.length);
        } else if (op == 8 && !liveFiles.isEmpty()) {
          long entity = random.nextInt(30);
          TestTables.equalityDelete(table, "entity_id", entity);
          log.add("equality delete entity " + entity);
        } else if (op == 9 && iceberg.currentSnapshot() != null) {
          List<Long> ancestors = SnapshotUtil.ancestorIds(iceberg.currentSnapshot(), iceberg::snapshot);
          if (ancestors.size() > 1) {
            long target = ancestors.get(1 + random.nextInt(ancestors.size() - 1));
            table.snapshots().rollbackTo(target);
            log.add("rollback to " + target);
          }
        }
        iceberg.refresh();
        if (iceberg.currentSnapshot() != null) {
          snapshots.add(iceberg.currentSnapshot().snapshotId());
        }
        // the current state, with the current schema
        compare(sql, table.query(), table.query(), log);
      }
      System.out.println("seed " + seed + ": " + log);
      for (long id : snapshots) {
        compare(sql, table.query().asOfSnapshot(id), table.query().asOfSnapshot(id), log);
      }
    }
  }

  private static void compare(SqlEngine sql, dev.featurestore.TimeTravelQuery version, dev.featurestore.TimeTravelQuery oracle,
      List<String> log) {
    List<Map<String, Object>> expected;
    try (QueryResult result = oracle.execute()) {
      expected = result.toList();
    }
    List<Map<String, Object>> actual = sql.query("SELECT * FROM t").table("t", version).toList();
    Comparator<Map<String, Object>> order = Comparator.comparing(Object::toString);
    assertThat(sorted(actual, order)).as("%s after %s", version, log).isEqualTo(sorted(expected, order));
  }

  private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows, Comparator<Map<String, Object>> order) {
    List<Map<String, Object>> copy = new ArrayList<>(rows);
    copy.sort(order);
    return copy;
  }

  private static Record randomRecord(Schema schema, Random random) {
    GenericRecord record = GenericRecord.create(schema);
    for (Types.NestedField field : schema.columns()) {
      boolean isNull = field.isOptional() && random.nextInt(5) == 0;
      Object value = isNull ? null : switch (field.type().typeId()) {
        case LONG -> (long) random.nextInt(30);
        case INTEGER -> random.nextInt(1000) - 500;
        case FLOAT -> random.nextInt(1000) / 8f;
        case DOUBLE -> random.nextInt(1000) / 16.0;
        case STRING -> "s" + random.nextInt(100);
        case TIMESTAMP -> OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(random.nextInt(86_400 * 30));
        default -> throw new IllegalStateException("unexpected type " + field.type());
      };
      record.setField(field.name(), value);
    }
    return record;
  }
}
