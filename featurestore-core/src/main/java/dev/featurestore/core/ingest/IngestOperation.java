package dev.featurestore.core.ingest;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.Ingest;
import dev.featurestore.IngestListener;
import dev.featurestore.IngestProgress;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.ObjectStorage;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.CommitMarks;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.TableHandle;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ingest into one table (see {@link Ingest}): a source, options, then {@link #commit()},
 * which writes Parquet data files with Iceberg's generic writer and lands them as exactly one
 * snapshot.
 *
 * <pre>{@code
 * IngestResult result = table.ingest().json(Path.of("events.jsonl")).autoEvolveSchema(true).commit();
 * }</pre>
 *
 * <h2>Conversion rules</h2>
 * Input names match top-level columns exactly (Java properties also match their snake_case form:
 * {@code entityId} fills {@code entity_id}). Each non-null value is converted to the column type:
 * <ul>
 *   <li>int, long: integral numbers; fractional numbers only when whole; strings parse. A value
 *       outside the range fails.
 *   <li>float, double: any number (a double into a float only when exact); strings parse.
 *   <li>decimal(p, s): numbers and strings; the value must fit scale {@code s} without rounding
 *       and precision {@code p}.
 *   <li>boolean: booleans; strings {@code true}/{@code false} (any case).
 *   <li>string: text, and numbers, booleans, UUIDs and enums as their text.
 *   <li>date, time: {@code LocalDate}, {@code LocalTime}, ISO-8601 strings.
 *   <li>timestamptz: {@code Instant}, {@code OffsetDateTime}, {@code ZonedDateTime},
 *       {@code java.util.Date}, {@code LocalDateTime} (taken as UTC) and ISO-8601 strings with or
 *       without offset (none means UTC; a space may replace the {@code T}; a plain date is
 *       midnight); stored in UTC.
 *   <li>timestamp: {@code LocalDateTime}; instant-like values and strings with an offset are
 *       converted to their UTC local time.
 *   <li>uuid: {@code UUID}, strings, 16 bytes. binary/fixed: {@code byte[]}, {@code ByteBuffer},
 *       base64 strings (fixed: exact length).
 *   <li>struct: maps (or Iceberg records) by field name; list: collections and arrays; map: maps.
 * </ul>
 *
 * <h2>Errors</h2>
 * Every data error is an {@link InvalidDataException}; nothing is committed and every file written
 * is deleted. The row is the 1-based row number, or for CSV and JSON files the line the row starts
 * on. Messages, exactly:
 * <ul>
 *   <li>{@code Cannot ingest row 3: column feature_a expects double: "abc"} (strings quoted,
 *       other values as {@code toString()}, cut at 100 characters)
 *   <li>{@code Cannot ingest row 3: column entity_id is required: null}
 *   <li>{@code Cannot ingest row 3: unknown column: foo}
 *   <li>{@code Cannot ingest row 3: cannot infer a type for new column foo: [1, 2]}
 *   <li>{@code Cannot parse CSV at line 7: <reason>} and {@code Cannot parse JSON at line 7: <reason>}
 * </ul>
 * A missing input file fails with {@link NotFoundException}
 * ({@code Cannot read ingest source: file does not exist: <path>}); storage failures with
 * {@link dev.featurestore.StorageException}; a lost commit race with
 * {@link CommitConflictException} (files deleted); an unknown commit outcome with
 * {@link CommitStateUnknownException} (files kept, never retried).
 *
 * <h2>Schema evolution</h2>
 * With {@link #autoEvolveSchema(boolean)} on, an unknown input column is added as a nullable
 * column when its first non-null value arrives: the type is the Parquet file's type, else inferred
 * from the value (long for integral, double for fractional, boolean, date/time kinds, uuid,
 * binary, string otherwise; CSV text is inferred the same way). The open files are closed and
 * new ones opened with the wider schema; earlier files lack the column, which reads as null.
 * Columns that only ever had nulls are added as strings. The schema change and the append are one
 * Iceberg transaction: one catalog commit.
 *
 * <h2>Thread safety</h2>
 * A pending ingest is not thread-safe and is single-use. Different ingests may run concurrently
 * on one table: files are written in parallel, commits serialize through the table's commit lock.
 */
public final class IngestOperation implements Ingest {
  /** Snapshot summary key naming the source kind: rows, objects, synthetic, csv, json or parquet. */
  public static final String SOURCE_PROPERTY = "featurestore.ingest.source";

  /**
   * Snapshot-summary key holding a random id per ingest, so the ingest finds its own snapshot
   * after the commit even if another process committed right after it.
   */
  public static final String INGEST_ID_PROPERTY = "featurestore.ingest.id";

  private final CommitMarks ingestMark = CommitMarks.under(INGEST_ID_PROPERTY);
  /** Snapshot summary key holding the object key of an ingest from the bucket. */
  public static final String OBJECT_PROPERTY = "featurestore.ingest.object";

  private static final Logger LOG = LoggerFactory.getLogger(IngestOperation.class);
  /** Synthetic ingests at least this large are generated by two writers in parallel. */
  static final long PARALLEL_SYNTHETIC_ROWS = 2L * SyntheticRows.BLOCK_ROWS;
  private static final Pattern INTEGRAL = Pattern.compile("[+-]?\\d{1,18}");
  private static final Pattern FRACTIONAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

  private final TableHandle handle;
  private String sourceKind;
  private Supplier<RowSource> source;
  private long syntheticRows;
  private long syntheticSeed;
  private boolean autoEvolve;
  private IngestListener listener;
  private long everyRows;
  private final Map<String, String> snapshotProperties = new LinkedHashMap<>();
  private String branch;
  private boolean used;
  private int syntheticWriters = 2;

  public IngestOperation(TableHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
  }

  @Override
  public Ingest rows(Iterable<? extends Map<String, ?>> rows) {
    requireNonNull(rows, "rows is null");
    return setSource("rows", () -> new MapRowSource(rows));
  }

  @Override
  public Ingest objects(Iterable<?> objects) {
    requireNonNull(objects, "objects is null");
    return setSource("objects", () -> new ObjectRowSource(objects));
  }

  @Override
  public Ingest synthetic(long rows, long seed) {
    if (rows < 0) {
      throw new InvalidArgumentException("Cannot generate synthetic rows: negative row count: " + rows);
    }
    setSource("synthetic", null);
    this.syntheticRows = rows;
    this.syntheticSeed = seed;
    return this;
  }

  @Override
  public Ingest csv(Path file) {
    requireNonNull(file, "file is null");
    return setSource("csv", () -> new CsvRowSource(existing(file)));
  }

  @Override
  public Ingest json(Path file) {
    requireNonNull(file, "file is null");
    return setSource("json", () -> new JsonRowSource(existing(file), decimalColumns(handle.table().schema())));
  }

  @Override
  public Ingest parquet(Path file) {
    requireNonNull(file, "file is null");
    return setSource("parquet", () -> new ParquetRowSource(existing(file)));
  }

  @Override
  public Ingest csvObject(String key) {
    requireNonNull(key, "key is null");
    ObjectStorage.checkKey(key);
    return setSource("csv", () -> new CsvRowSource(objectStream(key), key), key);
  }

  @Override
  public Ingest jsonObject(String key) {
    requireNonNull(key, "key is null");
    ObjectStorage.checkKey(key);
    return setSource("json", () -> new JsonRowSource(objectStream(key), key, decimalColumns(handle.table().schema())), key);
  }

  @Override
  public Ingest parquetObject(String key) {
    requireNonNull(key, "key is null");
    ObjectStorage.checkKey(key);
    return setSource("parquet", () -> new ParquetRowSource(objectFile(key), key), key);
  }

  private Ingest setSource(String kind, Supplier<RowSource> factory, String objectKey) {
    setSource(kind, factory);
    snapshotProperties.put(OBJECT_PROPERTY, objectKey);
    return this;
  }

  /** The staged object, through the table's FileIO (S3FileIO streams it: bounded memory). */
  private InputFile objectFile(String key) {
    ObjectStorage storage = handle.config().objectStorage().orElseThrow(() -> new ValidationException(
        "Cannot ingest object: the store is not on object storage, use csv/json/parquet(Path): " + key));
    String location = "s3://" + storage.bucket() + "/" + storage.key(key);
    InputFile file = handle.io().newInputFile(location);
    if (!file.exists()) {
      throw new NotFoundException("Cannot read ingest source: object does not exist: " + key);
    }
    return file;
  }

  private InputStream objectStream(String key) {
    return objectFile(key).newStream();
  }

  private Ingest setSource(String kind, Supplier<RowSource> factory) {
    checkPending();
    if (sourceKind != null) {
      throw new InvalidStateException("Cannot set ingest source: already set: " + sourceKind);
    }
    this.sourceKind = kind;
    this.source = factory;
    return this;
  }

  private static Path existing(Path file) {
    if (!Files.exists(file)) {
      throw new NotFoundException("Cannot read ingest source: file does not exist: " + file);
    }
    return file;
  }

  private static Set<String> decimalColumns(Schema schema) {
    Set<String> names = new HashSet<>();
    for (Types.NestedField field : schema.columns()) {
      if (field.type().typeId() == Type.TypeID.DECIMAL) {
        names.add(field.name());
      }
    }
    return names;
  }

  @Override
  public Ingest autoEvolveSchema(boolean enabled) {
    checkPending();
    this.autoEvolve = enabled;
    return this;
  }

  @Override
  public Ingest listener(IngestListener listener, long everyRows) {
    requireNonNull(listener, "listener is null");
    checkPending();
    if (everyRows <= 0) {
      throw new InvalidArgumentException("Cannot report ingest progress: everyRows must be positive: " + everyRows);
    }
    this.listener = listener;
    this.everyRows = everyRows;
    return this;
  }

  @Override
  public Ingest snapshotProperty(String key, String value) {
    requireNonNull(key, "key is null");
    requireNonNull(value, "value is null");
    checkPending();
    if (key.equals(SOURCE_PROPERTY) || key.equals(INGEST_ID_PROPERTY)) {
      throw new InvalidArgumentException("Cannot set snapshot property: reserved key: " + key);
    }
    snapshotProperties.put(key, value);
    return this;
  }

  @Override
  public Ingest toBranch(String branchName) {
    requireNonNull(branchName, "branchName is null");
    checkPending();
    if (branchName.isBlank()) {
      throw new InvalidArgumentException("Cannot ingest to branch: branch name is blank");
    }
    this.branch = branchName;
    return this;
  }

  /** For measurements: how many parallel writers a large synthetic ingest may use (default 2). */
  IngestOperation syntheticWriters(int writers) {
    this.syntheticWriters = writers;
    return this;
  }

  private void checkPending() {
    if (used) {
      throw new InvalidStateException("Cannot change ingest: already committed");
    }
  }

  @Override
  public IngestResult apply() {
    return start(true);
  }

  @Override
  public IngestResult commit() {
    return start(false);
  }

  private IngestResult start(boolean dryRun) {
    if (used) {
      throw new InvalidStateException("Cannot commit ingest: already committed");
    }
    if (sourceKind == null) {
      throw new InvalidStateException("Cannot commit ingest: no source set");
    }
    used = true;
    return new Run(dryRun).execute();
  }

  /** The state of one execution: schema as it evolves, writers, files, counters. */
  private final class Run {
    private final boolean dryRun;
    private final long startNanos = System.nanoTime();
    private final Table table;
    private final Schema baseSchema;
    private final int baseLastColumnId;
    private final TrackingFileIO io;
    private final Map<String, Type> added = new LinkedHashMap<>();
    private final Set<String> nullOnlyColumns = new LinkedHashSet<>();
    private final List<DataFile> files = new ArrayList<>();
    private final AtomicLong rows = new AtomicLong();
    private long nextProgress;
    private Schema schema;

    Run(boolean dryRun) {
      this.dryRun = dryRun;
      this.table = handle.translating("refresh table " + handle.id(), handle::refreshed);
      TableMetadata metadata = ((HasTableOperations) table).operations().current();
      this.baseSchema = metadata.schema();
      this.baseLastColumnId = metadata.lastColumnId();
      this.schema = baseSchema;
      this.io = new TrackingFileIO(table.io());
      this.nextProgress = everyRows;
    }

    IngestResult execute() {
      boolean written = false;
      try {
        if (sourceKind.equals("synthetic")) {
          writeSynthetic();
        } else {
          try (RowSource rowSource = source.get()) {
            writeRows(rowSource);
          }
        }
        if (autoEvolve) {
          for (String name : nullOnlyColumns) {
            if (schema.findField(name) == null) {
              added.put(name, Types.StringType.get());
            }
          }
          schema = evolvedSchema();
        }
        written = true;
      } catch (RuntimeException e) {
        throw Errors.translate(e, "ingest into table " + handle.id());
      } finally {
        if (!written) {
          deleteWrittenFiles();
        }
      }

      if (dryRun) {
        return finish(OptionalLong.empty(), List.copyOf(added.keySet()));
      }
      if (rows.get() == 0) {
        deleteWrittenFiles();
        return finish(OptionalLong.empty(), List.of());
      }
      long snapshotId;
      try {
        snapshotId = handle.commitLocked(this::commitFiles);
      } catch (CommitStateUnknownException e) {
        // the commit may reference the files: keep them, and never retry blindly
        throw e;
      } catch (RuntimeException | Error e) {
        deleteWrittenFiles();
        throw e;
      }
      return finish(OptionalLong.of(snapshotId), List.copyOf(added.keySet()));
    }

    private IngestResult finish(OptionalLong snapshotId, List<String> addedColumns) {
      Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
      long bytes = 0;
      for (DataFile file : files) {
        bytes += file.fileSizeInBytes();
      }
      if (listener != null) {
        listener.onProgress(new IngestProgress(rows.get(), files.size(), bytes, elapsed, true));
      }
      if (snapshotId.isPresent()) {
        LOG.info("Committed ingest into {}: {} rows in {} files ({} bytes){}, snapshot {}, {} ms", handle.id(),
            rows.get(), files.size(), bytes, addedColumns.isEmpty() ? "" : ", added columns " + addedColumns,
            snapshotId.getAsLong(), elapsed.toMillis());
      } else {
        LOG.debug("Ingest into {} committed nothing ({}): {} rows, {} ms", handle.id(),
            dryRun ? "dry run" : "no rows", rows.get(), elapsed.toMillis());
      }
      return new IngestResult(snapshotId, rows.get(), snapshotId.isPresent() ? files.size() : 0,
          snapshotId.isPresent() ? bytes : 0, addedColumns, elapsed);
    }

    private long commitFiles() {
      try {
        return commitFilesUnchecked();
      } catch (RuntimeException e) {
        if (Errors.catalogBusy(e)) {
          // the catalog row UPDATE never ran (SQLite answered busy/locked): nothing landed
          throw new CommitConflictException("Cannot commit ingest to table " + handle.id()
              + ": the catalog is locked by another writer: " + Errors.rootMessage(e), e);
        }
        throw e;
      }
    }

    private long commitFilesUnchecked() {
      Table current = handle.table();
      if (branch != null) {
        SnapshotRef ref = current.refs().get(branch);
        if (ref == null) {
          throw new NotFoundException("Cannot ingest to branch: unknown branch: " + branch);
        }
        if (ref.isTag()) {
          throw new ValidationException("Cannot ingest to branch: ref is a tag: " + branch);
        }
      }
      if (added.isEmpty()) {
        AppendFiles append = current.newAppend();
        files.forEach(append::appendFile);
        summarize(append).commit();
      } else {
        // schema change and append: one transaction, one catalog commit
        Transaction transaction = current.newTransaction();
        UpdateSchema update = transaction.updateSchema();
        added.forEach(update::addColumn);
        update.commit();
        Schema committed = transaction.table().schema();
        for (String name : added.keySet()) {
          Types.NestedField written = schema.findField(name);
          if (!written.equals(committed.findField(name))) {
            throw new CommitConflictException("Cannot commit ingest to table " + handle.id()
                + ": the schema changed concurrently: column " + name + " would get field id "
                + committed.findField(name).fieldId() + ", files were written with " + written.fieldId());
          }
        }
        AppendFiles append = transaction.newAppend();
        files.forEach(append::appendFile);
        summarize(append).commit();
        transaction.commitTransaction();
      }
      return committedSnapshotId(current);
    }

    /** The snapshot this ingest committed, found by its ingest id (not "whatever is current now"). */
    private long committedSnapshotId(Table current) {
      return ingestMark.committedSnapshotId(current, branch);
    }

    private <T extends SnapshotUpdate<T>> T summarize(T update) {
      snapshotProperties.forEach(update::set);
      if (branch != null) {
        update.toBranch(branch);
      }
      ingestMark.mark(update);
      return update.set(SOURCE_PROPERTY, sourceKind);
    }

    // ---- row sources

    private void writeRows(RowSource rowSource) {
      RowMapper mapper = new RowMapper(schema, rowSource.snakeCaseNames(), nullOnlyColumns);
      FileSink sink = dryRun ? null : new FileSink(table, schema, io, 0);
      try {
        RawRow raw = new RawRow();
        GenericRecord record = mapper.newRecord();
        while (rowSource.next(raw)) {
          String unknown;
          while ((unknown = mapper.map(raw, record, autoEvolve)) != null) {
            addColumn(unknown, valueOf(raw, unknown), raw.number, rowSource);
            mapper = new RowMapper(schema, rowSource.snakeCaseNames(), nullOnlyColumns);
            record = mapper.newRecord();
            if (sink != null) {
              files.addAll(sink.finish());
              sink = new FileSink(table, schema, io, 0);
            }
          }
          if (sink != null) {
            sink.write(record);
          }
          long n = rows.incrementAndGet();
          if (n == nextProgress) {
            progress(n);
          }
        }
        if (sink != null) {
          FileSink done = sink;
          sink = null;
          files.addAll(done.finish());
        }
      } finally {
        if (sink != null) {
          sink.abort();
        }
      }
    }

    private Object valueOf(RawRow raw, String name) {
      for (int i = 0; i < raw.size; i++) {
        if (raw.names[i].equals(name)) {
          return raw.values[i];
        }
      }
      return null;
    }

    private void addColumn(String name, Object value, long row, RowSource rowSource) {
      Type type = rowSource.declaredType(name).orElseGet(() -> inferType(value, rowSource.textValues(), row, name));
      added.put(name, type);
      nullOnlyColumns.remove(name);
      schema = evolvedSchema();
      LOG.debug("Ingest into {} adds column {} {} at row {}", handle.id(), name, type, row);
    }

    /** The base schema plus the added columns, with the field ids Iceberg's UpdateSchema assigns. */
    private Schema evolvedSchema() {
      if (added.isEmpty()) {
        return baseSchema;
      }
      List<Types.NestedField> columns = new ArrayList<>(baseSchema.columns());
      int[] lastId = {baseLastColumnId};
      for (Map.Entry<String, Type> column : added.entrySet()) {
        int id = ++lastId[0];
        Type type = TypeUtil.assignFreshIds(column.getValue(), () -> ++lastId[0]);
        columns.add(Types.NestedField.optional(id, column.getKey(), type));
      }
      return new Schema(columns, baseSchema.identifierFieldIds());
    }

    private void progress(long n) {
      nextProgress = n + everyRows;
      if (listener != null) {
        listener.onProgress(new IngestProgress(n, io.filesCompleted(), io.bytesCompleted(),
            Duration.ofNanos(System.nanoTime() - startNanos), false));
      }
    }

    // ---- synthetic

    private void writeSynthetic() {
      long total = syntheticRows;
      if (dryRun) {
        rows.set(total);
        return;
      }
      SyntheticRows generator;
      try {
        generator = new SyntheticRows(schema, Instant.now());
      } catch (IllegalArgumentException e) {
        throw new InvalidDataException(e.getMessage(), 0, null, e);
      }
      long blocks = (total + SyntheticRows.BLOCK_ROWS - 1) / SyntheticRows.BLOCK_ROWS;
      int writers = total >= PARALLEL_SYNTHETIC_ROWS ? syntheticWriters : 1;
      if (writers == 1) {
        files.addAll(writeBlocks(generator, 0, 1, blocks, total, new AtomicBoolean(), true));
        return;
      }
      AtomicBoolean cancelled = new AtomicBoolean();
      List<Future<List<DataFile>>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int first = w;
        futures.add(handle.workers().submit(
            () -> writeBlocks(generator, first, writers, blocks, total, cancelled, false)));
      }
      RuntimeException failure = null;
      boolean interrupted = false;
      for (Future<List<DataFile>> future : futures) {
        while (true) {
          try {
            List<DataFile> written = future.get(50, TimeUnit.MILLISECONDS);
            files.addAll(written);
            break;
          } catch (TimeoutException e) {
            long n = rows.get();
            if (n >= nextProgress && failure == null) {
              progress(n);
            }
          } catch (ExecutionException e) {
            cancelled.set(true);
            if (failure == null) {
              Throwable cause = e.getCause();
              failure = cause instanceof RuntimeException
                  ? (RuntimeException) cause
                  : new FeatureStoreException("Cannot ingest into table " + handle.id() + ": " + cause, cause);
            }
            break;
          } catch (InterruptedException e) {
            // keep waiting for the writers: no file may be created after the cleanup
            cancelled.set(true);
            interrupted = true;
            if (failure == null) {
              failure = new FeatureStoreException("Cannot ingest into table " + handle.id() + ": interrupted");
            }
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (failure != null) {
        throw failure;
      }
    }

    /** Writes blocks {@code first, first + stride, ...}: one writer's share of a synthetic ingest. */
    private List<DataFile> writeBlocks(SyntheticRows generator, int first, int stride, long blocks, long total,
        AtomicBoolean cancelled, boolean reportProgress) {
      FileSink sink = new FileSink(table, schema, io, first);
      boolean finished = false;
      try {
        GenericRecord record = generator.newRecord();
        for (long block = first; block < blocks && !cancelled.get(); block += stride) {
          java.util.SplittableRandom random = SyntheticRows.blockRandom(syntheticSeed, block);
          long end = Math.min(total, (block + 1) * SyntheticRows.BLOCK_ROWS);
          for (long i = block * SyntheticRows.BLOCK_ROWS; i < end; i++) {
            generator.fill(record, random);
            sink.write(record);
            long n = rows.incrementAndGet();
            if (reportProgress && n == nextProgress) {
              progress(n);
            }
          }
        }
        List<DataFile> written = sink.finish();
        finished = true;
        return written;
      } finally {
        if (!finished) {
          sink.abort();
        }
      }
    }

    // ---- cleanup

    private void deleteWrittenFiles() {
      for (String location : io.createdLocations()) {
        try {
          table.io().deleteFile(location);
        } catch (RuntimeException e) {
          LOG.warn("Cannot delete data file of failed ingest into {}: {}", handle.id(), location, e);
        }
      }
    }
  }

  /** The column type for a new column, from its first non-null value. */
  static Type inferType(Object value, boolean text, long row, String column) {
    if (text && value instanceof String) {
      String s = ((String) value).trim();
      if (INTEGRAL.matcher(s).matches()) {
        return Types.LongType.get();
      }
      if (FRACTIONAL.matcher(s).matches()) {
        return Types.DoubleType.get();
      }
      if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
        return Types.BooleanType.get();
      }
      return Types.StringType.get();
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
        || value instanceof java.math.BigInteger) {
      return Types.LongType.get();
    }
    if (value instanceof Double || value instanceof Float || value instanceof java.math.BigDecimal) {
      return Types.DoubleType.get();
    }
    if (value instanceof Boolean) {
      return Types.BooleanType.get();
    }
    if (value instanceof CharSequence || value instanceof Character || value instanceof Enum<?>) {
      return Types.StringType.get();
    }
    if (value instanceof java.time.LocalDate) {
      return Types.DateType.get();
    }
    if (value instanceof java.time.LocalTime) {
      return Types.TimeType.get();
    }
    if (value instanceof java.time.LocalDateTime) {
      return Types.TimestampType.withoutZone();
    }
    if (value instanceof Instant || value instanceof java.time.OffsetDateTime
        || value instanceof java.time.ZonedDateTime || value instanceof java.util.Date) {
      return Types.TimestampType.withZone();
    }
    if (value instanceof java.util.UUID) {
      return Types.UUIDType.get();
    }
    if (value instanceof byte[] || value instanceof java.nio.ByteBuffer) {
      return Types.BinaryType.get();
    }
    throw new InvalidDataException("Cannot ingest row " + row + ": cannot infer a type for new column " + column
        + ": " + RowMapper.render(value), row, column);
  }
}
