package dev.featurestore.spark;

import dev.featurestore.FeatureStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.SparkSession;

/**
 * The one Spark session of this module's tests ({@code local[2]}, no UI, few shuffle partitions),
 * started by the first test that needs it and stopped when the test JVM exits; starting one costs
 * seconds. Each test attaches its store under a catalog name of its own.
 */
final class SharedSpark {
  private static final AtomicInteger CATALOGS = new AtomicInteger();
  private static SparkSession session;

  private SharedSpark() {}

  static synchronized SparkSession session() {
    if (session == null) {
      session = SparkSession.builder()
          .master("local[2]")
          .appName("featurestore-spark-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.default.parallelism", "2")
          // small test tables: adaptive planning and console progress only add time
          .config("spark.sql.adaptive.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.session.timeZone", "UTC")
          .config("spark.sql.datetime.java8API.enabled", "true")
          .config("spark.sql.extensions", SparkFeatureStore.ICEBERG_EXTENSIONS)
          .getOrCreate();
      SparkSession started = session;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "stop-test-spark"));
    }
    return session;
  }

  /** {@code store} on the shared session, under a new catalog name. */
  static SparkFeatureStore attach(FeatureStore store) {
    return SparkFeatureStore.attach(session(), store, "fs" + CATALOGS.incrementAndGet());
  }
}
