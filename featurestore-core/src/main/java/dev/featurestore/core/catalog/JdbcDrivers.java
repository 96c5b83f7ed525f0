package dev.featurestore.core.catalog;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Registers the JDBC driver of a catalog URL with {@link DriverManager} before the library connects.
 * DriverManager finds drivers through {@code ServiceLoader} once per JVM, with the class loader of
 * its first caller: a second class loader in the same JVM (two {@code exec:java} runs in one Maven
 * call, application servers, notebooks that reload) then gets {@code No suitable driver found for
 * jdbc:sqlite:...}. Registering from the library's own class loader makes the driver visible to the
 * library's callers (Iceberg's {@code JdbcClientPool} included). SQLite always; PostgreSQL when its
 * driver is on the class path. Thread-safe.
 */
public final class JdbcDrivers {
  private JdbcDrivers() {}

  /** Makes the driver for {@code url} visible to this class loader, if the library knows it and it is present. */
  public static synchronized void register(String url) {
    String driverClass = url.startsWith("jdbc:sqlite:") ? "org.sqlite.JDBC"
        : url.startsWith("jdbc:postgresql:") ? "org.postgresql.Driver"
        : null;
    if (driverClass == null || accepted(url)) {
      return;
    }
    try {
      // initializing the class registers it the first time it loads in this class loader ...
      Class<?> type = Class.forName(driverClass, true, JdbcDrivers.class.getClassLoader());
      if (!accepted(url)) {
        // ... but not after it was deregistered (or registered from another class loader only)
        DriverManager.registerDriver((Driver) type.getDeclaredConstructor().newInstance());
      }
    } catch (ClassNotFoundException e) {
      // not on the class path: connecting fails with DriverManager's own "No suitable driver" message
    } catch (ReflectiveOperationException | SQLException | ClassCastException e) {
      // left to DriverManager, as above
    }
  }

  private static boolean accepted(String url) {
    try {
      return DriverManager.getDriver(url) != null;
    } catch (SQLException e) {
      return false;
    }
  }
}
