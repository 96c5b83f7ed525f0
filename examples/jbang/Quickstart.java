///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 17+
//REPOS mavencentral
//DEPS dev.featurestore:featurestore-bom:0.1.0-SNAPSHOT@pom
//DEPS dev.featurestore:featurestore-core
//DEPS org.slf4j:slf4j-simple:2.0.17
//JAVA_OPTIONS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Dorg.slf4j.simpleLogger.log.dev.featurestore=info

// The featurestore quickstart as a JBang script. After `./mvnw -B -DskipTests install` in the
// repository root (which puts the 0.1.0-SNAPSHOT artifacts in your local Maven repository, where
// JBang looks first):
//
//   jbang examples/jbang/Quickstart.java [store-dir]
//
// The BOM pins every featurestore module to one version, so featurestore-core needs none.

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.IngestResult;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import java.nio.file.Path;
import org.apache.iceberg.types.Types;

class Quickstart {
  public static void main(String[] args) {
    Path root = Path.of(args.length > 0 ? args[0] : "jbang-store").toAbsolutePath();
    try (FeatureStore store = FeatureStore.openLocal(root)) {
      store.dropTable(SyntheticFeatures.TABLE_ID, true);
      FeatureTable events = store.createTable(
          TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema()).build());
      IngestResult first = events.ingest().synthetic(10_000, 1).commit();
      events.evolveSchema().addColumn("feature_c", Types.DoubleType.get(), "7-day mean").commit();
      events.ingest().synthetic(5_000, 2).commit();
      for (SnapshotInfo s : events.snapshots().history()) {
        System.out.printf("snapshot %d %s +%d rows, total %d%n", s.snapshotId(), s.operation(), s.addedRows(), s.totalRows());
      }
      events.snapshots().rollbackTo(first.snapshotId().orElseThrow());
      TableStats stats = events.stats();
      System.out.println("rows after rollback: " + events.query().count());
      System.out.printf("stats: rows=%d snapshots=%d dataBytes=%d writeAmplification=%.2f%n",
          stats.rows(), stats.snapshots(), stats.dataBytes(), stats.writeAmplification());
    }
    System.out.println("JBANG QUICKSTART OK");
  }
}
