package dev.featurestore.core.base;

import static java.util.Objects.requireNonNull;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import dev.featurestore.core.catalog.JdbcDrivers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Named leases with fencing tokens, held in a small table ({@code featurestore_lease}) of the
 * store's JDBC catalog database (the embedded SQLite file or a shared PostgreSQL), so that every
 * process and host sharing the catalog sees them: one owner per name at a time.
 *
 * <ul>
 *   <li>{@link #acquire} grants a free or expired lease (a takeover increments the token) and
 *       refuses one that another owner holds, naming the holder and its expiry.
 *   <li>{@link #renew} extends a lease still held with the same token; it fails once the lease
 *       was taken over. A holder renews well within the duration and renews (checks) right
 *       before each action the lease guards: an action started within the duration of a
 *       successful renewal is fenced.
 *   <li>{@link #release} frees it at once (only if still held with that token).
 * </ul>
 *
 * Expiry uses the clock of the process (injectable): hosts must keep their clocks within a
 * small fraction of the lease duration of each other. One connection is kept open between calls
 * (a renewal right before every CDC commit costs one conditional update, not a connection
 * handshake) and dropped after any failure, so the next call reconnects; every statement is
 * atomic on its own (autocommit), so the table works on SQLite and PostgreSQL alike. Messages
 * never hold the connection URL or its credentials. {@link #close} closes the connection.
 */
public final class CatalogLease implements AutoCloseable {
  /** A lease held: its name, its owner, its fencing token (increasing per name) and its expiry. */
  public record Grant(String name, String owner, long token, Instant expiresAt) {}

  static final String TABLE = "featurestore_lease";

  /**
   * The name of the lease a table's maintainer holds: background maintenance takes it, and so does
   * any other engine that maintains the table (Spark's maintenance), so that one process at a time
   * maintains a table.
   */
  public static String maintenanceLeaseName(TableId table) {
    return "maintenance:" + requireNonNull(table, "table is null");
  }

  private final String url;
  private final Properties properties;
  private final Clock clock;
  private Connection connection; // guarded by this; null until first use and after a failure

  /** A lease table in the database at {@code url}, connected with {@code properties} (user, password, driver pragmas). */
  public CatalogLease(String url, Properties properties, Clock clock) {
    this.url = requireNonNull(url, "url is null");
    this.properties = (Properties) requireNonNull(properties, "properties is null").clone();
    this.clock = requireNonNull(clock, "clock is null");
    JdbcDrivers.register(url); // a second class loader in the JVM would not see the driver otherwise
  }

  /**
   * The lease table of a store's catalog database: the embedded SQLite file or the JDBC catalog's
   * database (its {@code jdbc.*} catalog properties, such as {@code jdbc.user} and
   * {@code jdbc.password}, are passed to the driver); empty for REST and caller-supplied catalogs,
   * which have no database the library can reach.
   */
  public static Optional<CatalogLease> forStore(FeatureStoreConfig config, Clock clock) {
    requireNonNull(config, "config is null");
    return CatalogDatabase.of(config).map(db -> new CatalogLease(db.url(), db.properties(), clock));
  }

  /**
   * Grants {@code name} to {@code owner} for {@code ttl}: if no one holds it, its holder's lease
   * expired (a takeover: the token increases), or {@code owner} holds it already.
   *
   * @throws InvalidStateException {@code Cannot acquire lease <name>: held by <owner> until
   *     <instant>: <name>} if another owner holds it
   * @throws StorageException if the catalog database cannot be reached
   * @throws dev.featurestore.CommitConflictException if the SQLite catalog stayed locked past its busy timeout
   */
  public synchronized Grant acquire(String name, String owner, Duration ttl) {
    requireNonNull(name, "name is null");
    requireNonNull(owner, "owner is null");
    checkTtl(ttl);
    long now = clock.millis();
    long expires = now + ttl.toMillis();
    try {
      Connection c = connection();
      try (PreparedStatement takeOver = c.prepareStatement("UPDATE " + TABLE
          + " SET owner = ?, token = token + 1, expires_at = ? WHERE name = ? AND owner <> ? AND expires_at < ?")) {
        takeOver.setString(1, owner);
        takeOver.setLong(2, expires);
        takeOver.setString(3, name);
        takeOver.setString(4, owner);
        takeOver.setLong(5, now);
        takeOver.executeUpdate();
      }
      try (PreparedStatement mine = c.prepareStatement("UPDATE " + TABLE
          + " SET expires_at = ? WHERE name = ? AND owner = ?")) {
        mine.setLong(1, expires);
        mine.setString(2, name);
        mine.setString(3, owner);
        mine.executeUpdate();
      }
      Optional<Grant> row = read(c, name);
      if (row.isEmpty()) {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE
            + " (name, owner, token, expires_at) VALUES (?, ?, 1, ?)")) {
          insert.setString(1, name);
          insert.setString(2, owner);
          insert.setLong(3, expires);
          insert.executeUpdate();
        } catch (SQLException e) {
          // another owner inserted it first: it holds the lease (read below)
        }
        row = read(c, name);
      }
      Grant grant = row.orElseThrow(() -> new StorageException("Cannot acquire lease " + name
          + ": the lease row cannot be written: " + name));
      if (!grant.owner().equals(owner)) {
        throw new InvalidStateException("Cannot acquire lease " + name + ": held by " + grant.owner() + " until "
            + grant.expiresAt() + ": " + name);
      }
      return grant;
    } catch (SQLException e) {
      discard();
      throw failure("acquire", name, e);
    }
  }

  /**
   * Grants {@code name} to {@code owner} now if {@code previousOwner} holds it, expired or not:
   * for a caller that knows that holder is gone (for example because it now holds a lock the
   * holder held while alive). The token increases.
   *
   * @throws InvalidStateException {@code Cannot take over lease <name>: held by <owner>, not
   *     <previous>: <name>} if someone else holds it meanwhile
   */
  public synchronized Grant takeOver(String name, String previousOwner, String owner, Duration ttl) {
    requireNonNull(name, "name is null");
    requireNonNull(previousOwner, "previousOwner is null");
    requireNonNull(owner, "owner is null");
    checkTtl(ttl);
    long expires = clock.millis() + ttl.toMillis();
    try {
      Connection c = connection();
      try (PreparedStatement takeOver = c.prepareStatement("UPDATE " + TABLE
          + " SET owner = ?, token = token + 1, expires_at = ? WHERE name = ? AND owner = ?")) {
        takeOver.setString(1, owner);
        takeOver.setLong(2, expires);
        takeOver.setString(3, name);
        takeOver.setString(4, previousOwner);
        takeOver.executeUpdate();
      }
      Grant grant = read(c, name).orElseThrow(() -> new InvalidStateException("Cannot take over lease " + name
          + ": it was never granted: " + name));
      if (!grant.owner().equals(owner)) {
        throw new InvalidStateException("Cannot take over lease " + name + ": held by " + grant.owner() + ", not "
            + previousOwner + ": " + name);
      }
      return grant;
    } catch (SQLException e) {
      discard();
      throw failure("take over", name, e);
    }
  }

  /**
   * Extends a lease still held with {@code grant}'s token by {@code ttl} from now.
   *
   * @throws InvalidStateException {@code Cannot renew lease <name>: taken over by <owner> (token
   *     <n>): <name>} (or {@code released}) once the grant no longer holds
   */
  public synchronized Grant renew(Grant grant, Duration ttl) {
    requireNonNull(grant, "grant is null");
    checkTtl(ttl);
    long expires = clock.millis() + ttl.toMillis();
    try {
      Connection c = connection();
      int updated;
      try (PreparedStatement renew = c.prepareStatement("UPDATE " + TABLE
          + " SET expires_at = ? WHERE name = ? AND owner = ? AND token = ?")) {
        renew.setLong(1, expires);
        renew.setString(2, grant.name());
        renew.setString(3, grant.owner());
        renew.setLong(4, grant.token());
        updated = renew.executeUpdate();
      }
      if (updated == 0) {
        Optional<Grant> now = read(c, grant.name());
        throw new InvalidStateException("Cannot renew lease " + grant.name() + ": "
            + now.map(g -> "taken over by " + g.owner() + " (token " + g.token() + ")").orElse("released")
            + ": " + grant.name());
      }
      return new Grant(grant.name(), grant.owner(), grant.token(), Instant.ofEpochMilli(expires));
    } catch (SQLException e) {
      discard();
      throw failure("renew", grant.name(), e);
    }
  }

  /** Frees the lease if {@code grant} still holds it; otherwise does nothing. */
  public synchronized void release(Grant grant) {
    requireNonNull(grant, "grant is null");
    try {
      Connection c = connection();
      try (PreparedStatement release = c.prepareStatement("UPDATE " + TABLE
          + " SET expires_at = 0 WHERE name = ? AND owner = ? AND token = ?")) {
        release.setString(1, grant.name());
        release.setString(2, grant.owner());
        release.setLong(3, grant.token());
        release.executeUpdate();
      }
    } catch (SQLException e) {
      discard();
      throw failure("release", grant.name(), e);
    }
  }

  /** The current holder of {@code name} (expired or not), if the lease was ever granted. */
  public synchronized Optional<Grant> holder(String name) {
    requireNonNull(name, "name is null");
    try {
      Connection c = connection();
      return read(c, name);
    } catch (SQLException e) {
      discard();
      throw failure("read", name, e);
    }
  }

  private static void checkTtl(Duration ttl) {
    requireNonNull(ttl, "ttl is null");
    InvalidArgumentException.check(!ttl.isNegative() && !ttl.isZero() && ttl.toMillis() > 0,
        "Cannot acquire lease: duration must be positive: %s", ttl);
  }

  /** Closes the kept connection; a later call opens a new one. */
  @Override
  public synchronized void close() {
    discard();
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Connection c = DriverManager.getConnection(url, properties);
      try {
        c.setAutoCommit(true);
        ensureTable(c);
      } catch (SQLException e) {
        try {
          c.close();
        } catch (SQLException closing) {
          e.addSuppressed(closing);
        }
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  /** Drops the kept connection after a failure (it may be broken) or on close. */
  private void discard() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        // closing a broken connection: nothing left to release
      }
      connection = null;
    }
  }

  private static void ensureTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE IF NOT EXISTS " + TABLE
          + " (name VARCHAR(255) NOT NULL PRIMARY KEY, owner VARCHAR(255) NOT NULL, token BIGINT NOT NULL,"
          + " expires_at BIGINT NOT NULL)");
    } catch (SQLException e) {
      // two processes creating it at once (PostgreSQL may report a duplicate type): fine if it exists now
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
        r.next();
      } catch (SQLException again) {
        e.addSuppressed(again);
        throw e;
      }
    }
  }

  private static Optional<Grant> read(Connection c, String name) throws SQLException {
    try (PreparedStatement select = c.prepareStatement("SELECT owner, token, expires_at FROM " + TABLE + " WHERE name = ?")) {
      select.setString(1, name);
      try (ResultSet r = select.executeQuery()) {
        if (!r.next()) {
          return Optional.empty();
        }
        return Optional.of(new Grant(name, r.getString(1), r.getLong(2), Instant.ofEpochMilli(r.getLong(3))));
      }
    }
  }

  /** The driver's message only: never the URL, which may hold credentials. */
  private static dev.featurestore.FeatureStoreException failure(String verb, String name, SQLException e) {
    if (Errors.catalogBusy(e)) {
      // SQLite busy or locked past the busy timeout: nothing was changed, as a locked catalog commit
      return new dev.featurestore.CommitConflictException("Cannot " + verb + " lease " + name
          + ": the catalog is locked by another writer: " + name);
    }
    return new StorageException("Cannot " + verb + " lease " + name + ": the catalog database failed ("
        + e.getClass().getSimpleName() + ", SQL state " + e.getSQLState() + "): " + name);
  }
}
