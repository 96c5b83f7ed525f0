package dev.featurestore.core.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.StorageException;
import dev.featurestore.TableDefinition;
import java.nio.file.Path;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 item 22: the library registers the catalog's JDBC driver itself. DriverManager loads
 * drivers by ServiceLoader once per JVM, so a second class loader (a second {@code exec:java} run
 * in one Maven call) sees none; a deregistered driver stands for that here.
 */
class JdbcDriversTest {
  @TempDir Path dir;

  @AfterEach
  void restoreDrivers() {
    JdbcDrivers.register("jdbc:sqlite:restore");
    JdbcDrivers.register("jdbc:postgresql://127.0.0.1:1/restore");
  }

  @Test
  void embeddedStore_opens_whenDriverManagerHasNoSqliteDriver() throws SQLException {
    deregister("org.sqlite.JDBC");
    assertThatThrownBy(() -> DriverManager.getDriver("jdbc:sqlite:x")).isInstanceOf(SQLException.class);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder("t.drivers",
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get()))).build());
      table.append(List.of(Map.of("id", 1L)));
      assertThat(table.query().count()).isEqualTo(1);
    }
  }

  @Test
  void postgresCatalog_reachesTheServer_whenDriverManagerHasNoPostgresDriver() throws SQLException {
    deregister("org.postgresql.Driver");
    // nothing listens on port 1: the driver must get as far as connecting
    assertThatThrownBy(() -> FeatureStore.builder().jdbcCatalog("jdbc:postgresql://127.0.0.1:1/none", "u", "p")
            .warehouseLocation(dir.resolve("warehouse").toString()).build())
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot open JDBC catalog: jdbc:postgresql://127.0.0.1:1/none")
        .hasMessageNotContaining("No suitable driver");
  }

  private static void deregister(String className) throws SQLException {
    for (Driver driver : Collections.list(DriverManager.getDrivers())) {
      if (driver.getClass().getName().equals(className)) {
        DriverManager.deregisterDriver(driver);
      }
    }
  }
}
