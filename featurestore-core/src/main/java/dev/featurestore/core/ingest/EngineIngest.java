package dev.featurestore.core.ingest;

import dev.featurestore.core.base.FileIngestEngine;
import dev.featurestore.core.base.FileIngestEngine.Declined;
import dev.featurestore.core.base.FileIngestEngine.Format;
import dev.featurestore.core.base.FileIngestEngine.WrittenFile;
import dev.featurestore.core.storage.LocalFileIO;
import dev.featurestore.core.storage.ParquetInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CSV or Parquet file ingest written by a {@link FileIngestEngine} (featurestore-duckdb's, when it
 * is on the classpath) instead of the Java path. Decides whether an engine may write the source,
 * runs it (for CSV beside {@link CsvShape}'s check of the file's shape and of the int, long, double
 * and timestamp fields' canonical text, which the engine may then read typed; the check cancels the
 * engine when the file is not plain or a field not canonical), then checks every file before it
 * becomes a data file: the footer's columns carry the table's field ids and exact types, each
 * partition value equals Iceberg's transform of the file's lowest and highest source value, the row
 * counts add up (to the CSV's record count or the Parquet file's row count). Files then move into the table's data location (local tables) or
 * are copied through the table's FileIO.
 *
 * <p>Whenever the engine declines, fails or a check fails, everything it wrote is deleted and the
 * caller runs the Java path, which writes the rows or reports the typed error exactly as without an
 * engine. Tables opt out with the table property {@value #ENGINE_PROPERTY}{@code =java}.
 */
final class EngineIngest {
  /**
   * Table property choosing who writes file ingests: {@code auto} (default: an engine when one is
   * on the classpath and takes the source) or {@code java} (always the Java path). Also the
   * snapshot summary key naming the engine that wrote an ingest's files.
   */
  static final String ENGINE_PROPERTY = "featurestore.ingest.engine";

  private static final Logger LOG = LoggerFactory.getLogger(EngineIngest.class);
  private static final MetricsConfig FULL_METRICS =
      MetricsConfig.fromProperties(Map.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "full"));
  private static final Set<String> VERIFIABLE_TRANSFORMS = Set.of("identity", "year", "month", "day", "hour");

  /** What an engine wrote: the data files (in the table's location) and the engine's name. */
  record Written(List<DataFile> files, long rows, String engine) {}

  private final dev.featurestore.TableId id;
  private final Table table;
  private final Schema schema;
  private final TrackingFileIO io;
  private final IngestProgressTracker progress;
  private final java.util.concurrent.ExecutorService workers;

  EngineIngest(dev.featurestore.TableId id, Table table, Schema schema, TrackingFileIO io,
      IngestProgressTracker progress, java.util.concurrent.ExecutorService workers) {
    this.id = id;
    this.table = table;
    this.schema = schema;
    this.io = io;
    this.progress = progress;
    this.workers = workers;
  }

  /**
   * Writes {@code file} with an engine, or returns empty when none writes it (no engine, the table
   * opted out, the source or table is outside what engines take, the engine declined or failed, a
   * check failed): nothing is left behind then, and the caller runs the Java path.
   */
  Optional<Written> write(Format format, Path file) {
    String setting = table.properties().getOrDefault(ENGINE_PROPERTY, "auto");
    if (setting.equals("java")) {
      return Optional.empty();
    }
    Optional<String> unsupported = unsupportedTable();
    if (unsupported.isPresent()) {
      LOG.debug("Ingest into {} runs on the Java path: {}", id, unsupported.get());
      return Optional.empty();
    }
    List<String> columns;
    try {
      columns = inputColumns(format, file);
    } catch (RuntimeException | Declined e) {
      LOG.debug("Ingest into {} runs on the Java path: {}", id, e.getMessage());
      return Optional.empty();
    }
    Optional<String> unsupportedColumns = unsupportedColumns(columns);
    if (unsupportedColumns.isPresent()) {
      LOG.debug("Ingest into {} runs on the Java path: {}", id, unsupportedColumns.get());
      return Optional.empty();
    }
    Iterator<FileIngestEngine> engines = ServiceLoader.load(FileIngestEngine.class, EngineIngest.class.getClassLoader())
        .iterator();
    while (engines.hasNext()) {
      FileIngestEngine engine;
      try {
        engine = engines.next();
      } catch (java.util.ServiceConfigurationError e) {
        LOG.warn("Cannot load file ingest engine: {}", e.getMessage());
        continue;
      }
      Optional<Written> written = write(engine, format, file, columns);
      if (written.isPresent()) {
        return written;
      }
    }
    return Optional.empty();
  }

  private Optional<Written> write(FileIngestEngine engine, Format format, Path file, List<String> columns) {
    Path staging = null;
    List<DataFile> placed = List.of();
    boolean done = false;
    long startNanos = System.nanoTime();
    FileIngestEngine.Job job = null;
    Thread closing = null;
    try {
      staging = stagingDirectory();
      // the shape check also checks the values of these columns, so the engine may read them typed
      byte[] kinds = new byte[columns.size()];
      boolean[] required = new boolean[columns.size()];
      Set<String> canonical = new HashSet<>();
      if (format == Format.CSV) {
        for (int i = 0; i < columns.size(); i++) {
          Types.NestedField column = schema.findField(columns.get(i));
          kinds[i] = CanonicalText.kind(column.type());
          required[i] = column.isRequired();
          if (kinds[i] != CanonicalText.NONE) {
            canonical.add(column.name());
          }
        }
      }
      FileIngestEngine.Request request = new FileIngestEngine.Request(format, file.toAbsolutePath(), columns, schema,
          table.spec(), staging, compressionCodec(), compressionLevel(), PropertyUtil.propertyAsLong(table.properties(),
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT),
          canonical);
      List<WrittenFile> files;
      long expectedRows;
      long preparedNanos;
      long ranNanos;
      Future<Long> shape = null;
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong estimate = new AtomicLong();
      if (format == Format.CSV) {
        estimate.set(rowsEstimate(file));
        // the shape check starts before the engine is prepared, on a core the preparation leaves idle;
        // a file outside the plain shape cancels the engine, once there is one (or before it runs)
        AtomicBoolean shapeFailed = new AtomicBoolean();
        AtomicReference<FileIngestEngine.Job> running = new AtomicReference<>();
        shape = workers.submit(() -> {
          try {
            long records = CsvShape.check(file, kinds, required, columns.toArray(new String[0]), stop::get);
            estimate.set(records);
            return records;
          } catch (CsvShape.NotPlain | IOException | RuntimeException e) {
            shapeFailed.set(true);
            FileIngestEngine.Job prepared = running.get();
            if (prepared != null) {
              prepared.cancel();
            }
            throw e;
          }
        });
        try {
          job = engine.prepare(request);
          running.set(job);
          if (shapeFailed.get()) {
            job.cancel();
          }
          preparedNanos = System.nanoTime();
          files = job.run(fraction -> progress.estimate((long) (fraction * estimate.get())));
          ranNanos = System.nanoTime();
        } catch (Declined | RuntimeException e) {
          stop.set(true);
          // a file outside the plain shape cancels the engine: report that reason
          try {
            shapeRecords(shape);
          } catch (Declined shapeFailure) {
            if (!(shapeFailure.getCause() instanceof java.util.concurrent.CancellationException)) {
              throw shapeFailure;
            }
          }
          throw e;
        }
        expectedRows = shapeRecords(shape);
      } else {
        job = engine.prepare(request);
        preparedNanos = System.nanoTime();
        expectedRows = parquetRows(file);
        files = job.run(fraction -> progress.estimate((long) (fraction * expectedRows)));
        ranNanos = System.nanoTime();
      }
      // the engine releases its resources (DuckDB frees its memory) while the files are checked and
      // placed; the staging directory, which holds the engine's spill files, goes only after that
      closing = closeAside(job);
      long writtenNanos = System.nanoTime();
      long rows = 0;
      for (WrittenFile written : files) {
        rows += written.rows();
      }
      if (rows != expectedRows) {
        throw new Declined("the engine wrote " + rows + " rows, the source has " + expectedRows);
      }
      placed = place(files, staging);
      done = true;
      LOG.debug("Ingest into {}: {} wrote {} rows in {} files in {} ms (prepared in {} ms, ran {} ms), checked and"
          + " placed them in {} ms", id, engine.name(), rows, placed.size(), (writtenNanos - startNanos) / 1_000_000,
          (preparedNanos - startNanos) / 1_000_000, (ranNanos - preparedNanos) / 1_000_000,
          (System.nanoTime() - writtenNanos) / 1_000_000);
      return Optional.of(new Written(placed, rows, engine.name()));
    } catch (Declined e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new dev.featurestore.FeatureStoreException("Cannot ingest into table " + id + ": interrupted", e);
      }
      LOG.info("Ingest into {} runs on the Java path: {} declined: {}", id, engine.name(), e.getMessage());
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw e instanceof RuntimeException ? (RuntimeException) e : new UncheckedIOException((IOException) e);
      }
      LOG.warn("Ingest into {} runs on the Java path: {} failed: {}", id, engine.name(), e.toString(), e);
      return Optional.empty();
    } finally {
      if (job != null) {
        closed(job, closing);
      }
      if (staging != null) {
        deleteRecursively(staging);
      }
      if (!done) {
        // every location placed so far was created through the tracking FileIO; the Java path
        // starts counting rows from zero again (the engine's progress estimates set the count)
        io.deleteCreatedFiles(id);
        io.forgetCreatedFiles();
        progress.setRows(0);
      }
    }
  }

  /** Closes {@code job} on a thread of its own (not the store's workers, which may all be busy). */
  private static Thread closeAside(FileIngestEngine.Job job) {
    Thread thread = new Thread(job::close, "featurestore-engine-close");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** Waits for {@code closing} to close {@code job}, or closes it here; interrupts are kept for later. */
  private static void closed(FileIngestEngine.Job job, Thread closing) {
    if (closing == null) {
      job.close();
      return;
    }
    boolean interrupted = false;
    while (closing.isAlive()) {
      try {
        closing.join();
      } catch (InterruptedException e) {
        interrupted = true; // the engine's files must be released before its directory goes
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The shape check's record count; waits for it. A file outside the plain shape declines. */
  private static long shapeRecords(Future<Long> shape) throws Declined, IOException {
    try {
      return shape.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Declined("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CsvShape.NotPlain) {
        throw new Declined("the CSV is not plain: " + cause.getMessage());
      }
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      throw new Declined("cannot check the CSV's shape: " + cause, cause);
    } catch (java.util.concurrent.CancellationException e) {
      throw new Declined("the CSV's shape check was cancelled", e);
    }
  }

  /** Rows of a CSV, estimated from the first megabyte until the shape check has counted them. */
  private static long rowsEstimate(Path file) throws IOException {
    long size = Files.size(file);
    byte[] head = new byte[(int) Math.min(size, 1 << 20)];
    try (InputStream in = Files.newInputStream(file)) {
      int n = in.readNBytes(head, 0, head.length);
      int lines = 0;
      for (int i = 0; i < n; i++) {
        if (head[i] == '\n') {
          lines++;
        }
      }
      return lines == 0 ? 1 : Math.max(1, (long) ((double) size / n * lines) - 1);
    }
  }

  private Optional<String> unsupportedTable() {
    Map<String, String> properties = table.properties();
    String format = properties.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT);
    if (!format.equalsIgnoreCase("parquet")) {
      return Optional.of("data files are " + format);
    }
    for (Map.Entry<String, String> property : properties.entrySet()) {
      if (property.getKey().startsWith(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX)
          && property.getValue().equalsIgnoreCase("true")) {
        return Optional.of("bloom filters are configured: " + property.getKey());
      }
      if (property.getKey().startsWith("encryption.")) {
        return Optional.of("the table is encrypted");
      }
    }
    for (Types.NestedField column : schema.columns()) {
      if (!column.type().isPrimitiveType()) {
        return Optional.of("nested column: " + column.name());
      }
    }
    for (PartitionField field : table.spec().fields()) {
      Types.NestedField source = schema.findField(field.sourceId());
      if (source == null || !schema.columns().contains(source)) {
        return Optional.of("partition source is not a top-level column: " + field);
      }
      String transform = field.transform().toString();
      if (!VERIFIABLE_TRANSFORMS.contains(transform) && !field.transform().isVoid()) {
        return Optional.of("partition transform: " + field);
      }
    }
    return Optional.empty();
  }

  private Optional<String> unsupportedColumns(List<String> columns) {
    Set<String> seen = new HashSet<>();
    for (String column : columns) {
      if (!seen.add(column)) {
        return Optional.of("duplicate input column: " + column);
      }
      if (schema.findField(column) == null || !schema.columns().contains(schema.findField(column))) {
        return Optional.of("input column not in the table: " + column);
      }
    }
    for (Types.NestedField column : schema.columns()) {
      if (!seen.contains(column.name())) {
        if (column.isRequired()) {
          return Optional.of("required column not in the input: " + column.name());
        }
        if (column.writeDefault() != null) {
          return Optional.of("column with a write default not in the input: " + column.name());
        }
      }
    }
    return columns.isEmpty() ? Optional.of("no input columns") : Optional.empty();
  }

  /** The source's column names: the CSV header as the Java path's parser reads it, the Parquet file's top-level fields. */
  private static List<String> inputColumns(Format format, Path file) throws Declined {
    if (!Files.isRegularFile(file)) {
      throw new Declined("not a regular file: " + file);
    }
    if (format == Format.CSV) {
      try (CsvRowSource source = new CsvRowSource(file)) {
        return source.header();
      }
    }
    MessageType type = parquetSchema(file);
    List<String> names = new ArrayList<>();
    for (org.apache.parquet.schema.Type field : type.getFields()) {
      names.add(field.getName());
    }
    return names;
  }

  private static MessageType parquetSchema(Path file) {
    return footer(file).getFileMetaData().getSchema();
  }

  private static long parquetRows(Path file) {
    long rows = 0;
    for (org.apache.parquet.hadoop.metadata.BlockMetaData block : footer(file).getBlocks()) {
      rows += block.getRowCount();
    }
    return rows;
  }

  private static ParquetMetadata footer(Path file) {
    // Parquet's default read options build a Hadoop Configuration, which parses its XML resources
    // for every file: a plain configuration reads the same footer without them
    ParquetReadOptions options = ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
    try (ParquetFileReader reader = ParquetFileReader.open(
        ParquetInput.of(org.apache.iceberg.Files.localInput(file.toFile())), options)) {
      return reader.getFooter();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String compressionCodec() {
    return PropertyUtil.propertyAsString(table.properties(), TableProperties.PARQUET_COMPRESSION,
        TableProperties.PARQUET_COMPRESSION_DEFAULT);
  }

  private OptionalInt compressionLevel() {
    String level = table.properties().get(TableProperties.PARQUET_COMPRESSION_LEVEL);
    return level == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(level.trim()));
  }

  /**
   * A fresh local directory for the engine's files: inside the table's data location when that is
   * local (so placing a file is a rename), else a temporary directory.
   */
  private Path stagingDirectory() throws IOException {
    String name = ".ingest-" + UUID.randomUUID();
    Optional<Path> local = localPath(table.locationProvider().newDataLocation(name));
    if (local.isPresent()) {
      return Files.createDirectories(local.get());
    }
    return Files.createTempDirectory("featurestore-ingest-");
  }

  private static Optional<Path> localPath(String location) {
    if (!location.startsWith("/") && !location.startsWith("file:")) {
      return Optional.empty();
    }
    try {
      return Optional.of(LocalFileIO.toPath(location));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Checks every written file and moves (or copies) it to its data file location. */
  private List<DataFile> place(List<WrittenFile> files, Path staging) throws Declined, IOException {
    PartitionSpec spec = table.spec();
    OutputFileFactory names = OutputFileFactory.builderFor(table, 0, System.nanoTime())
        .format(FileFormat.PARQUET)
        .ioSupplier(() -> io)
        .build();
    MetricsConfig metricsConfig = MetricsConfig.forTable(table);
    Path root = staging.toAbsolutePath().normalize();
    List<DataFile> dataFiles = new ArrayList<>();
    for (WrittenFile written : files) {
      Path path = written.path().toAbsolutePath().normalize();
      if (!path.startsWith(root) || !Files.isRegularFile(path)) {
        throw new Declined("the engine named a file outside its directory: " + path);
      }
      if (written.rows() == 0) {
        continue;
      }
      ParquetMetadata footer = footer(path);
      checkColumns(footer.getFileMetaData().getSchema());
      PartitionData partition = partition(spec, written);
      checkPartition(spec, partition, ParquetUtil.footerMetrics(footer, Stream.empty(), FULL_METRICS), path);
      Metrics metrics = ParquetUtil.footerMetrics(footer, Stream.empty(), metricsConfig);
      if (metrics.recordCount() != written.rows()) {
        throw new Declined("file " + path.getFileName() + " holds " + metrics.recordCount() + " rows, the engine said "
            + written.rows());
      }
      // an unpartitioned spec has no partition path (given an empty partition, Iceberg's location
      // provider would put an empty directory level into the key: "data//file", refused by S3)
      EncryptedOutputFile target = spec.isUnpartitioned() ? names.newOutputFile() : names.newOutputFile(spec, partition);
      String location = target.encryptingOutputFile().location();
      long size = Files.size(path);
      moveOrCopy(path, location, target.encryptingOutputFile());
      dataFiles.add(DataFiles.builder(spec)
          .withPath(location)
          .withFormat(FileFormat.PARQUET)
          .withFileSizeInBytes(size)
          .withMetrics(metrics)
          .withPartition(spec.isUnpartitioned() ? null : partition)
          .withSplitOffsets(ParquetUtil.getSplitOffsets(footer))
          .build());
    }
    return dataFiles;
  }

  /** The file's top-level columns are the table's, in order, with the table's field ids and exact types. */
  private void checkColumns(MessageType fileType) throws Declined {
    List<Types.NestedField> columns = schema.columns();
    if (fileType.getFieldCount() != columns.size() || !ParquetSchemaUtil.hasIds(fileType)) {
      throw new Declined("the engine's file does not hold the table's columns with field ids: " + fileType);
    }
    Schema fileSchema = ParquetSchemaUtil.convert(fileType);
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField expected = columns.get(i);
      Types.NestedField actual = fileSchema.columns().get(i);
      if (actual.fieldId() != expected.fieldId() || !actual.name().equals(expected.name())
          || !actual.type().equals(expected.type())) {
        throw new Declined("the engine's column " + actual + " is not the table's " + expected);
      }
    }
  }

  private static PartitionData partition(PartitionSpec spec, WrittenFile written) throws Declined {
    if (written.partition().size() != spec.fields().size()) {
      throw new Declined("the engine gave " + written.partition().size() + " partition values for "
          + spec.fields().size() + " partition fields");
    }
    PartitionData partition = new PartitionData(spec.partitionType());
    for (int i = 0; i < spec.fields().size(); i++) {
      Object value = written.partition().get(i);
      Class<?> expected = spec.partitionType().fields().get(i).type().typeId().javaClass();
      if (value != null && !expected.isInstance(value)) {
        throw new Declined("partition value " + value + " of " + spec.fields().get(i) + " is not a " + expected.getSimpleName());
      }
      partition.set(i, value);
    }
    return partition;
  }

  /**
   * Each partition value equals Iceberg's own transform of the file's lowest and highest source
   * value (the transforms allowed are monotonic, so every value between maps there too), or is
   * null and so is every source value.
   */
  @SuppressWarnings("unchecked")
  private void checkPartition(PartitionSpec spec, PartitionData partition, Metrics metrics, Path path)
      throws Declined {
    for (int i = 0; i < spec.fields().size(); i++) {
      PartitionField field = spec.fields().get(i);
      Object claimed = partition.get(i, Object.class);
      int source = field.sourceId();
      Long values = metrics.valueCounts().get(source);
      Long nulls = metrics.nullValueCounts().get(source);
      if (values == null || nulls == null) {
        throw new Declined("no value counts for " + field + " in " + path.getFileName());
      }
      if (field.transform().isVoid() || claimed == null) {
        if (claimed != null || (!field.transform().isVoid() && !nulls.equals(values))) {
          throw new Declined("partition " + field + " = " + claimed + " does not match " + path.getFileName());
        }
        continue;
      }
      Type type = schema.findType(source);
      java.nio.ByteBuffer lower = metrics.lowerBounds().get(source);
      java.nio.ByteBuffer upper = metrics.upperBounds().get(source);
      if (nulls != 0 || lower == null || upper == null) {
        throw new Declined("partition " + field + " = " + claimed + " cannot be checked against " + path.getFileName());
      }
      Transform<Object, Object> transform = (Transform<Object, Object>) field.transform();
      Object low = normalize(transform.bind(type).apply(Conversions.fromByteBuffer(type, lower)));
      Object high = normalize(transform.bind(type).apply(Conversions.fromByteBuffer(type, upper)));
      if (!normalize(claimed).equals(low) || !normalize(claimed).equals(high)) {
        throw new Declined("partition " + field + " = " + claimed + " but " + path.getFileName() + " spans "
            + low + " .. " + high);
      }
    }
  }

  private static Object normalize(Object value) {
    return value instanceof CharSequence ? value.toString() : value;
  }

  private void moveOrCopy(Path from, String location, OutputFile target) throws IOException {
    Optional<Path> local = localPath(location);
    if (local.isPresent()) {
      Files.createDirectories(local.get().getParent());
      try {
        Files.move(from, local.get(), StandardCopyOption.ATOMIC_MOVE);
      } catch (java.nio.file.AtomicMoveNotSupportedException e) {
        Files.move(from, local.get());
      }
      return;
    }
    // a fresh unique location, written as Iceberg's writers write theirs (create() would HEAD it first)
    try (InputStream in = Files.newInputStream(from); PositionOutputStream out = target.createOrOverwrite()) {
      in.transferTo(out);
    }
    Files.delete(from);
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          LOG.warn("Cannot delete ingest staging file: {}", p, e);
        }
      });
    } catch (IOException e) {
      LOG.warn("Cannot delete ingest staging directory: {}", root, e);
    }
  }
}
