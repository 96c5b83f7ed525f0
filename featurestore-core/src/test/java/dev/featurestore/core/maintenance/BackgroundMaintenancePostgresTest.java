package dev.featurestore.core.maintenance;

import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.core.testing.HandClock;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance lease on a PostgreSQL catalog: the same handover as on SQLite
 * ({@link BackgroundMaintenanceTest#leaseHandover}). Runs when {@code FEATURESTORE_TEST_POSTGRES_URL},
 * {@code _USER} and {@code _PASSWORD} are set ({@code (source .ci/services.sh; ./mvnw ...)}).
 */
class BackgroundMaintenancePostgresTest {
  @TempDir Path dir;

  @Test
  void twoMaintainers_throughPostgres_oneAtATime_takenOverAfterExpiry() {
    String url = System.getenv("FEATURESTORE_TEST_POSTGRES_URL");
    assumeThat(url).as("FEATURESTORE_TEST_POSTGRES_URL (set by .ci/run)").isNotBlank();
    String user = System.getenv("FEATURESTORE_TEST_POSTGRES_USER");
    String password = System.getenv("FEATURESTORE_TEST_POSTGRES_PASSWORD");
    HandClock clock = HandClock.aheadOfSystem();
    String table = "pg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT)
        + ".events";
    try (FeatureStore first = FeatureStore.builder().jdbcCatalog(url, user, password)
             .warehouseLocation(dir.resolve("warehouse").toString()).clock(clock).build();
         FeatureStore second = FeatureStore.builder().jdbcCatalog(url, user, password)
             .warehouseLocation(dir.resolve("warehouse").toString()).clock(clock).build()) {
      FeatureTable events = first.createTable(TableDefinition.builder(table, SyntheticFeatures.schema()).build());
      BackgroundMaintenanceTest.leaseHandover(events, second.table(events.id()), clock);
    }
  }
}
