package dev.featurestore.duckdb;

import dev.featurestore.core.base.FileIngestEngine;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.DoubleConsumer;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBPreparedStatement;
import org.duckdb.QueryProgress;

/**
 * Core's file ingest engine on DuckDB (found through {@link java.util.ServiceLoader}; public only
 * because the service loader requires it, not an API): one {@code COPY ... TO ... (FORMAT parquet,
 * PARTITION_BY ..., FIELD_IDS ...)} statement reads the CSV or Parquet file, converts every value
 * to its column's exact type and writes one Parquet file per partition, with the table's field
 * ids, in a fresh in-memory DuckDB per ingest.
 *
 * <p>It converts only what it converts exactly as the Java path does (see {@link IngestSql}); any
 * other value stops the statement ({@code error()}), and the ingest runs the Java path instead.
 */
public final class DuckIngestEngine implements FileIngestEngine {
  /** DuckDB's memory for one ingest; partitions past it are flushed early or spilled to the output directory. */
  static final String MEMORY_LIMIT = "1GB";

  @Override
  public String name() {
    return "duckdb";
  }

  @Override
  public Job prepare(Request request) throws Declined {
    String sql;
    IngestSql plan;
    Connection connection;
    try {
      connection = open(request.outputDirectory());
    } catch (SQLException e) {
      throw new Declined("cannot open DuckDB: " + firstLine(e), e);
    }
    try {
      Map<String, String> inputTypes = request.format() == Format.PARQUET
          ? parquetTypes(connection, request.source()) : Map.of();
      plan = new IngestSql(request, inputTypes);
      sql = plan.copy();
    } catch (Declined | SQLException | RuntimeException e) {
      close(connection);
      if (e instanceof Declined) {
        throw (Declined) e;
      }
      throw new Declined("cannot plan the ingest: " + (e instanceof SQLException ? firstLine((SQLException) e) : e), e);
    }
    return new DuckJob(connection, sql, plan);
  }

  private static Connection open(Path work) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("memory_limit", MEMORY_LIMIT);
    properties.setProperty("temp_directory", work.resolve(".duckdb-tmp").toString());
    properties.setProperty("autoinstall_known_extensions", "false");
    properties.setProperty("autoload_known_extensions", "false");
    Connection connection = DriverManager.getConnection("jdbc:duckdb:", properties);
    try (Statement statement = connection.createStatement()) {
      // timestamps without an offset are UTC, as on the Java path; CAST(timestamptz AS DATE) is the UTC day
      statement.execute("SET TimeZone = 'UTC'");
      statement.execute("SET enable_progress_bar = true");
      statement.execute("SET enable_progress_bar_print = false");
    } catch (SQLException e) {
      close(connection);
      throw e;
    }
    return connection;
  }

  /** The DuckDB type of each top-level column of a Parquet file, by name. */
  private static Map<String, String> parquetTypes(Connection connection, Path file) throws SQLException {
    Map<String, String> types = new LinkedHashMap<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "DESCRIBE SELECT * FROM read_parquet(" + DuckTypes.quote(file.toString()) + ")")) {
      while (rows.next()) {
        types.put(rows.getString("column_name"), rows.getString("column_type"));
      }
    }
    return types;
  }

  static String firstLine(SQLException e) {
    String message = String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static void close(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // nothing was written through it that matters
    }
  }

  /** One prepared COPY on its own connection. */
  private static final class DuckJob implements Job {
    private final Connection connection;
    private final String sql;
    private final IngestSql plan;
    private volatile DuckDBPreparedStatement statement;
    private volatile boolean cancelled;
    private boolean closed;

    DuckJob(Connection connection, String sql, IngestSql plan) {
      this.connection = connection;
      this.sql = sql;
      this.plan = plan;
    }

    @Override
    public List<WrittenFile> run(DoubleConsumer progress) throws Declined {
      List<WrittenFile> files = new ArrayList<>();
      SQLException[] failure = new SQLException[1];
      try {
        statement = connection.prepareStatement(sql).unwrap(DuckDBPreparedStatement.class);
      } catch (SQLException e) {
        throw new Declined("cannot prepare the COPY: " + firstLine(e), e);
      }
      if (cancelled) {
        throw new Declined("cancelled");
      }
      // the statement runs on its own thread, so this one can report progress as Core's listener expects
      Thread copy = new Thread(() -> {
        try (ResultSet result = statement.executeQuery()) {
          while (result.next()) {
            files.add(plan.writtenFile(result.getString("filename"), result.getLong("count"),
                result.getObject("partition_keys")));
          }
        } catch (SQLException e) {
          failure[0] = e;
        } catch (RuntimeException e) {
          failure[0] = new SQLException("Cannot read the COPY's result: " + e, e);
        }
      }, "featurestore-duckdb-ingest");
      copy.setDaemon(true);
      copy.start();
      boolean interrupted = false;
      try {
        while (copy.isAlive()) {
          try {
            copy.join(100);
          } catch (InterruptedException e) {
            interrupted = true;
            cancel();
          }
          if (copy.isAlive() && !cancelled) {
            try {
              QueryProgress p = statement.getQueryProgress();
              if (p.getPercentage() >= 0) {
                progress.accept(Math.min(1.0, p.getPercentage() / 100));
              }
            } catch (SQLException e) {
              // progress is a courtesy
            }
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      if (cancelled || interrupted) {
        throw new Declined("cancelled");
      }
      if (failure[0] != null) {
        throw new Declined(IngestSql.reason(failure[0]), failure[0]);
      }
      progress.accept(1.0);
      return files;
    }

    @Override
    public void cancel() {
      cancelled = true;
      DuckDBPreparedStatement running = statement;
      if (running != null) {
        try {
          running.cancel();
        } catch (SQLException e) {
          // it may have finished already
        }
      }
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      DuckDBPreparedStatement running = statement;
      if (running != null) {
        try {
          running.close();
        } catch (SQLException e) {
          // closing the connection below releases it too
        }
      }
      DuckIngestEngine.close(connection);
    }
  }

  /**
   * The COPY statement of one ingest, and how its result rows become written files. From CSV, the
   * int, long, double and timestamp columns must be among the request's canonical columns (whose
   * every field core checks for canonical text beside the statement; a request with another such
   * column is declined): DuckDB's CSV reader reads them typed (timestamps as {@code TIMESTAMPTZ}:
   * with their offset, UTC without one; for a timestamp without zone, its UTC time), which reads
   * canonical text as the Java path does. The other columns are read as VARCHAR (an empty field is
   * null, as on the Java path) and converted, per Iceberg type:
   *
   * <ul>
   *   <li>decimal(p, s): no letters (exponents, inf, nan), no {@code _}, at most {@code s} fraction
   *       digits (DuckDB would round more; the Java path refuses them), then DuckDB's cast;
   *   <li>boolean: {@code true} or {@code false} in any case (DuckDB also reads t, yes, 1);
   *   <li>date: exactly {@code yyyy-MM-dd} with a year from 1000 (DuckDB also reads non-padded
   *       fields);
   *   <li>time: {@code HH:mm[:ss[.f{1,6}]]} with valid hours, minutes and seconds;
   *   <li>string: as it is; float, uuid (DuckDB writes it without Parquet's UUID annotation), binary,
   *       fixed and nanosecond timestamps are not taken.
   * </ul>
   *
   * From Parquet, only the same types, integer widening, decimal widening at the same scale and
   * between the two timestamp kinds (in UTC).
   */
  static final class IngestSql {
    private static final String DECLINE = "featurestore-ingest-decline";
    private static final String PARTITION_PREFIX = "__featurestore_partition_";
    private static final String TIME = "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?";
    private static final Set<String> CODECS = Set.of("zstd", "snappy", "gzip", "uncompressed", "brotli");

    private final Request request;
    private final Schema schema;
    private final Map<String, String> parquetTypes;
    private final List<PartitionField> partitionFields = new ArrayList<>();
    private final List<String> partitionExpressions = new ArrayList<>();

    IngestSql(Request request, Map<String, String> parquetTypes) throws Declined {
      this.request = request;
      this.schema = request.schema();
      for (Types.NestedField column : schema.columns()) {
        if (column.name().startsWith(PARTITION_PREFIX)) {
          throw new Declined("column name reserved by the engine: " + column.name());
        }
      }
      if (request.format() == Format.PARQUET) {
        checkParquetNames(parquetTypes);
      } else {
        checkCanonicalColumns();
      }
      this.parquetTypes = parquetTypes;
      for (PartitionField field : request.spec().fields()) {
        if (field.transform().isVoid()) {
          continue;
        }
        Types.NestedField source = schema.findField(field.sourceId());
        partitionFields.add(field);
        partitionExpressions.add(partitionExpression(field, source));
      }
    }

    /**
     * The statement checks no int, long, double or timestamp text itself: each such CSV column must
     * be one the caller checks for canonical text (core's scan), which DuckDB then reads typed.
     */
    private void checkCanonicalColumns() throws Declined {
      for (String name : request.inputColumns()) {
        Type type = schema.findField(name).type();
        if (TYPED_READS.containsKey(type.typeId()) && !request.canonicalColumns().contains(name)) {
          throw new Declined("CSV column " + name + " of type " + type + " is not among the canonical columns");
        }
      }
    }

    /**
     * The types whose CSV text the caller checks, each with the DuckDB type it is read as: its own,
     * or for a timestamp {@code TIMESTAMPTZ}, which reads an offset where there is one and UTC where
     * there is none (the session's zone).
     */
    private static final Map<Type.TypeID, String> TYPED_READS = Map.of(Type.TypeID.INTEGER, "INTEGER",
        Type.TypeID.LONG, "BIGINT", Type.TypeID.DOUBLE, "DOUBLE", Type.TypeID.TIMESTAMP, "TIMESTAMPTZ");

    private void checkParquetNames(Map<String, String> types) throws Declined {
      if (!types.keySet().equals(Set.copyOf(request.inputColumns()))) {
        throw new Declined("DuckDB reads other columns than the Parquet footer names: " + types.keySet());
      }
    }

    /** The whole statement. */
    String copy() throws Declined {
      List<Types.NestedField> columns = schema.columns();
      Set<String> input = Set.copyOf(request.inputColumns());
      StringBuilder select = new StringBuilder("SELECT ");
      String from;
      if (request.format() == Format.CSV) {
        // three steps: the text (empty is null), each column's candidate value, the checked value
        StringBuilder text = new StringBuilder("SELECT ");
        StringBuilder candidates = new StringBuilder();
        List<String> names = request.inputColumns();
        Set<String> canonical = request.canonicalColumns();
        for (int i = 0; i < names.size(); i++) {
          String name = DuckTypes.identifier(names.get(i));
          // canonical columns are read typed (an empty field is null already)
          text.append(i > 0 ? ", " : "").append(canonical.contains(names.get(i)) ? name : "NULLIF(" + name + ", '')")
              .append(" AS ").append(name);
        }
        for (int i = 0; i < columns.size(); i++) {
          Types.NestedField column = columns.get(i);
          if (input.contains(column.name())) {
            String v = DuckTypes.identifier(column.name());
            candidates.append(candidates.length() > 0 ? ", " : "");
            if (canonical.contains(column.name())) {
              candidates.append(v).append(" AS ").append(typed(i));
            } else {
              candidates.append(v).append(" AS ").append(text(i)).append(", ").append(candidate(column, v))
                  .append(" AS ").append(typed(i));
            }
          }
        }
        from = "(SELECT " + candidates + " FROM (" + text + " FROM " + source() + "))";
        for (int i = 0; i < columns.size(); i++) {
          Types.NestedField column = columns.get(i);
          String value = !input.contains(column.name()) ? "CAST(NULL AS " + sqlType(column) + ")"
              : canonical.contains(column.name()) ? canonical(column, typed(i)) : checked(column, text(i), typed(i));
          select.append(i > 0 ? ", " : "").append(value).append(" AS ").append(DuckTypes.identifier(column.name()));
        }
      } else {
        from = source();
        for (int i = 0; i < columns.size(); i++) {
          Types.NestedField column = columns.get(i);
          String value = input.contains(column.name()) ? fromParquet(column) : "CAST(NULL AS " + sqlType(column) + ")";
          select.append(i > 0 ? ", " : "").append(value).append(" AS ").append(DuckTypes.identifier(column.name()));
        }
      }
      StringBuilder outer = new StringBuilder("SELECT *");
      for (int i = 0; i < partitionExpressions.size(); i++) {
        outer.append(", ").append(partitionExpressions.get(i)).append(" AS ").append(DuckTypes.identifier(PARTITION_PREFIX + i));
      }
      outer.append(" FROM (").append(select).append(" FROM ").append(from).append(")");

      StringBuilder options = new StringBuilder("FORMAT parquet");
      String codec = request.compressionCodec().toLowerCase(Locale.ROOT);
      if (!CODECS.contains(codec)) {
        throw new Declined("compression codec: " + codec);
      }
      options.append(", COMPRESSION ").append(DuckTypes.quote(codec));
      if (request.compressionLevel().isPresent()) {
        if (!codec.equals("zstd")) {
          throw new Declined("compression level for " + codec);
        }
        options.append(", COMPRESSION_LEVEL ").append(request.compressionLevel().getAsInt());
      }
      if (!partitionExpressions.isEmpty()) {
        options.append(", PARTITION_BY (");
        for (int i = 0; i < partitionExpressions.size(); i++) {
          options.append(i > 0 ? ", " : "").append(DuckTypes.identifier(PARTITION_PREFIX + i));
        }
        options.append(")");
      }
      if (mayReachTargetSize()) {
        // rolling costs DuckDB some of its parallel writing: only when a file may reach the target
        options.append(", FILE_SIZE_BYTES ").append(request.targetFileSizeBytes());
      }
      options.append(", FIELD_IDS {");
      for (int i = 0; i < columns.size(); i++) {
        options.append(i > 0 ? ", " : "").append(DuckTypes.identifier(columns.get(i).name())).append(": ")
            .append(columns.get(i).fieldId());
      }
      options.append("}, RETURN_STATS true");
      return "COPY (" + outer + ") TO " + DuckTypes.quote(request.outputDirectory().resolve("files").toString())
          + " (" + options + ")";
    }

    /**
     * Whether one partition's file may reach the target size: when the source, at the usual
     * shrink from CSV text to compressed Parquet (at least half), could be that large.
     */
    private boolean mayReachTargetSize() {
      long size;
      try {
        size = java.nio.file.Files.size(request.source());
      } catch (java.io.IOException e) {
        return true;
      }
      return (request.format() == Format.CSV ? size / 2 : size) >= request.targetFileSizeBytes();
    }

    private String source() {
      Path file = request.source();
      if (request.format() == Format.PARQUET) {
        return "read_parquet(" + DuckTypes.quote(file.toString()) + ")";
      }
      StringBuilder columns = new StringBuilder("{");
      List<String> names = request.inputColumns();
      for (int i = 0; i < names.size(); i++) {
        String type = request.canonicalColumns().contains(names.get(i))
            ? typedRead(schema.findField(names.get(i)).type()) : "VARCHAR";
        columns.append(i > 0 ? ", " : "").append(DuckTypes.quote(names.get(i))).append(": '").append(type).append("'");
      }
      columns.append("}");
      // the header as the Java path read it names the columns; DuckDB only skips its line
      return "read_csv(" + DuckTypes.quote(file.toString()) + ", auto_detect = false, header = true, delim = ',', "
          + "quote = '\"', escape = '\"', strict_mode = true, null_padding = false, encoding = 'utf-8', columns = "
          + columns + ")";
    }

    /** The DuckDB type a canonical column is read as. */
    private static String typedRead(Type type) {
      String read = TYPED_READS.get(type.typeId());
      if (read == null) {
        throw new IllegalArgumentException("no canonical text for " + type);
      }
      return read;
    }

    /**
     * A canonical column's value from its typed reading {@code t}: core checked that every field
     * is empty or canonical text, which the typed reader reads as the Java path does; a required
     * column still stops at a null.
     */
    private static String canonical(Types.NestedField column, String t) {
      String value = t;
      Type type = column.type();
      if (type.typeId() == Type.TypeID.TIMESTAMP && !((Types.TimestampType) type).shouldAdjustToUTC()) {
        value = "CAST(" + t + " AS TIMESTAMP)"; // the UTC clock time, the session's zone being UTC
      }
      return column.isRequired() ? "coalesce(" + value + ", " + decline(column) + ")" : value;
    }

    private static String sqlType(Types.NestedField column) {
      return DuckTypes.sqlType(column.type(), column.name());
    }

    private static String text(int column) {
      return DuckTypes.identifier(PARTITION_PREFIX + "text_" + column);
    }

    private static String typed(int column) {
      return DuckTypes.identifier(PARTITION_PREFIX + "typed_" + column);
    }

    private static String decline(Types.NestedField column) {
      return "error(" + DuckTypes.quote(DECLINE + ": column " + column.name()) + ")";
    }

    /** A Parquet column, converted, a required one checked for nulls. */
    private String fromParquet(Types.NestedField column) throws Declined {
      String name = DuckTypes.identifier(column.name());
      String converted = fromParquet(column, name, parquetTypes.get(column.name()));
      return column.isRequired() ? "coalesce(" + converted + ", " + decline(column) + ")" : converted;
    }

    /**
     * A CSV column's candidate value from its text {@code v} (null when the text is null): DuckDB's
     * reading of the text, which {@link #checked} keeps only where it is the Java path's too.
     */
    private static String candidate(Types.NestedField column, String v) throws Declined {
      Type type = column.type();
      switch (type.typeId()) {
        case STRING:
          return v;
        case BOOLEAN:
          return "CASE lower(" + v + ") WHEN 'true' THEN true WHEN 'false' THEN false END";
        case DECIMAL: {
          Types.DecimalType decimal = (Types.DecimalType) type;
          return "TRY_CAST(" + v + " AS DECIMAL(" + decimal.precision() + "," + decimal.scale() + "))";
        }
        case DATE:
          return "TRY_CAST(" + v + " AS DATE)";
        case TIME:
          return "CASE WHEN regexp_full_match(" + v + ", '" + TIME + "') THEN TRY_CAST(" + v + " AS TIME) END";
        default:
          throw new Declined("column " + column.name() + " of type " + type + " from CSV");
      }
    }

    /**
     * A CSV column's value: null for null text (an error for a required column), else the candidate
     * where DuckDB read the text as the Java path does, else an error that stops the statement.
     */
    private static String checked(Types.NestedField column, String v, String t) {
      String same;
      switch (column.type().typeId()) {
        case DATE:
          // exactly yyyy-MM-dd with a four-digit year, as the Java path reads it
          same = "strftime(" + t + ", '%Y-%m-%d') = " + v + " AND " + t + " BETWEEN DATE '1000-01-01' AND DATE '9999-12-31'";
          break;
        case STRING:
          return column.isRequired() ? "coalesce(" + v + ", " + decline(column) + ")" : v;
        case DECIMAL:
          // no letters (exponents, inf, nan), no underscores, no more fraction digits than the scale (DuckDB rounds them)
          same = t + " IS NOT NULL AND lower(" + v + ") = upper(" + v + ") AND NOT contains(" + v + ", '_') AND (strpos("
              + v + ", '.') = 0 OR length(" + v + ") - strpos(" + v + ", '.') <= "
              + ((Types.DecimalType) column.type()).scale() + ")";
          break;
        default:
          same = t + " IS NOT NULL";
      }
      return "CASE WHEN " + v + " IS NULL THEN " + (column.isRequired() ? decline(column) : "NULL") + " WHEN " + same
          + " THEN " + t + " ELSE " + decline(column) + " END";
    }

    /** SQL converting a Parquet column of DuckDB type {@code from} exactly as the Java path does. */
    private static String fromParquet(Types.NestedField column, String name, String from) throws Declined {
      Type type = column.type();
      String to = DuckTypes.sqlType(type, column.name());
      if (from == null) {
        throw new Declined("no DuckDB type for column " + column.name());
      }
      if (from.equals(to) && type.typeId() != Type.TypeID.FIXED && type.typeId() != Type.TypeID.TIMESTAMP_NANO
          && type.typeId() != Type.TypeID.UUID) {
        return name;
      }
      boolean widening = switch (type.typeId()) {
        case LONG -> Set.of("TINYINT", "SMALLINT", "INTEGER").contains(from);
        case INTEGER -> Set.of("TINYINT", "SMALLINT").contains(from);
        case TIMESTAMP -> Set.of("TIMESTAMP", "TIMESTAMP WITH TIME ZONE").contains(from);
        case DECIMAL -> sameScaleNarrower(from, (Types.DecimalType) type);
        default -> false;
      };
      if (!widening) {
        throw new Declined("column " + column.name() + ": " + from + " to " + type);
      }
      return "CAST(" + name + " AS " + to + ")";
    }

    private static boolean sameScaleNarrower(String from, Types.DecimalType to) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("DECIMAL\\((\\d+),(\\d+)\\)").matcher(from);
      return m.matches() && Integer.parseInt(m.group(2)) == to.scale() && Integer.parseInt(m.group(1)) <= to.precision();
    }

    /**
     * The partition value of a row as DuckDB computes it (Iceberg's transforms, floor semantics,
     * in UTC); core checks every file's value against Iceberg's own transform of its bounds.
     */
    private static String partitionExpression(PartitionField field, Types.NestedField source) throws Declined {
      String x = DuckTypes.identifier(source.name());
      Type.TypeID type = source.type().typeId();
      String transform = field.transform().toString();
      boolean timestamp = type == Type.TypeID.TIMESTAMP;
      boolean date = type == Type.TypeID.DATE;
      switch (transform) {
        case "identity":
          return switch (type) {
            case INTEGER, LONG, STRING, BOOLEAN, DECIMAL -> x;
            case DATE -> "(" + x + " - DATE '1970-01-01')";
            case TIMESTAMP -> "epoch_us(" + x + ")";
            default -> throw new Declined("identity partition on " + source.type());
          };
        case "year":
          if (timestamp || date) {
            return "(year(" + x + ") - 1970)";
          }
          break;
        case "month":
          if (timestamp || date) {
            return "((year(" + x + ") - 1970) * 12 + month(" + x + ") - 1)";
          }
          break;
        case "day":
          if (timestamp) {
            return floorDiv("epoch_us(" + x + ")", 86_400_000_000L);
          }
          if (date) {
            return "(" + x + " - DATE '1970-01-01')";
          }
          break;
        case "hour":
          if (timestamp) {
            return floorDiv("epoch_us(" + x + ")", 3_600_000_000L);
          }
          break;
        default:
          break;
      }
      throw new Declined("partition transform " + field + " on " + source.type());
    }

    /** {@code floor(value / unit)} in SQL (DuckDB's {@code //} truncates toward zero). */
    private static String floorDiv(String value, long unit) {
      return "((" + value + " - ((" + value + " % " + unit + " + " + unit + ") % " + unit + ")) // " + unit + ")";
    }

    /** A row of the COPY's result as a written file, its partition values in Iceberg's internal form. */
    WrittenFile writtenFile(String filename, long rows, Object partitionKeys) {
      List<Object> partition = new ArrayList<>();
      Map<?, ?> keys = partitionKeys instanceof Map ? (Map<?, ?>) partitionKeys : Map.of();
      int next = 0;
      for (PartitionField field : request.spec().fields()) {
        if (field.transform().isVoid()) {
          partition.add(null);
          continue;
        }
        Object text = keys.get(PARTITION_PREFIX + next);
        if (!keys.containsKey(PARTITION_PREFIX + next)) {
          throw new IllegalStateException("Cannot read partition value: missing in the COPY's result: " + field);
        }
        partition.add(text == null ? null : internal(field, schema.findField(field.sourceId()).type(), text.toString()));
        next++;
      }
      return new WrittenFile(Path.of(filename), rows, partition);
    }

    private static Object internal(PartitionField field, Type source, String text) {
      if (!field.transform().isIdentity()) {
        return Integer.parseInt(text);
      }
      return switch (source.typeId()) {
        case INTEGER, DATE -> Integer.parseInt(text);
        case LONG, TIMESTAMP -> Long.parseLong(text);
        case STRING -> text;
        case BOOLEAN -> Boolean.parseBoolean(text);
        case DECIMAL -> new BigDecimal(text).setScale(((Types.DecimalType) source).scale());
        default -> throw new IllegalStateException("Cannot read partition value of type " + source);
      };
    }

    /** Why a COPY failed, for the log: a value outside the checked forms, or DuckDB's first line. */
    static String reason(SQLException e) {
      String line = firstLine(e);
      int at = line.indexOf(DECLINE);
      if (at >= 0) {
        return "a value outside the forms it converts exactly as the Java path does, in "
            + line.substring(at + DECLINE.length() + 2);
      }
      return line;
    }
  }
}
