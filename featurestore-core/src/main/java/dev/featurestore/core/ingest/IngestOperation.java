package dev.featurestore.core.ingest;

import static java.util.Objects.requireNonNull;

import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.Ingest;
import dev.featurestore.IngestListener;
import dev.featurestore.IngestResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidDataException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.core.base.Errors;
import dev.featurestore.core.base.FileIngestEngine;
import dev.featurestore.core.base.TableHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ingest into one table (see {@link Ingest}): a source, options, then {@link #commit()},
 * which writes Parquet data files with Iceberg's writers and lands them as exactly one snapshot. A
 * CSV or Parquet file may be written by a {@link dev.featurestore.core.base.FileIngestEngine}
 * instead (DuckDB, when featurestore-duckdb is on the classpath; see {@link EngineIngest}): the same
 * rows, the same errors, the same single commit.
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

  /**
   * Snapshot summary key naming the engine that wrote a file ingest's data files ({@code duckdb}),
   * absent when the Java path wrote them; also the table property choosing who writes file ingests:
   * {@code auto} (default) or {@code java}. See {@link EngineIngest}.
   */
  public static final String ENGINE_PROPERTY = EngineIngest.ENGINE_PROPERTY;

  /** Snapshot summary key holding the object key of an ingest from the bucket. */
  public static final String OBJECT_PROPERTY = "featurestore.ingest.object";

  private static final Logger LOG = LoggerFactory.getLogger(IngestOperation.class);

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
  /** The local file of a csv or parquet source: an engine may write it (see {@link EngineIngest}). */
  private Path sourceFile;

  public IngestOperation(TableHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
  }

  @Override
  public Ingest rows(Iterable<? extends Map<String, ?>> rows) {
    InvalidArgumentException.requireNonNull(rows, "set ingest source", "rows");
    return setSource("rows", () -> new MapRowSource(rows));
  }

  @Override
  public Ingest objects(Iterable<?> objects) {
    InvalidArgumentException.requireNonNull(objects, "set ingest source", "objects");
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
    InvalidArgumentException.requireNonNull(file, "set ingest source", "file");
    setSource("csv", IngestSources.csv(file));
    this.sourceFile = file;
    return this;
  }

  @Override
  public Ingest json(Path file) {
    InvalidArgumentException.requireNonNull(file, "set ingest source", "file");
    return setSource("json", IngestSources.json(handle, file));
  }

  @Override
  public Ingest parquet(Path file) {
    InvalidArgumentException.requireNonNull(file, "set ingest source", "file");
    setSource("parquet", IngestSources.parquet(file));
    this.sourceFile = file;
    return this;
  }

  @Override
  public Ingest csvObject(String key) {
    InvalidArgumentException.requireNonNull(key, "set ingest source", "key");
    return setSource("csv", IngestSources.csvObject(handle, key), key);
  }

  @Override
  public Ingest jsonObject(String key) {
    InvalidArgumentException.requireNonNull(key, "set ingest source", "key");
    return setSource("json", IngestSources.jsonObject(handle, key), key);
  }

  @Override
  public Ingest parquetObject(String key) {
    InvalidArgumentException.requireNonNull(key, "set ingest source", "key");
    return setSource("parquet", IngestSources.parquetObject(handle, key), key);
  }

  private Ingest setSource(String kind, Supplier<RowSource> factory, String objectKey) {
    setSource(kind, factory);
    snapshotProperties.put(OBJECT_PROPERTY, objectKey);
    return this;
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

  @Override
  public Ingest autoEvolveSchema(boolean enabled) {
    checkPending();
    this.autoEvolve = enabled;
    return this;
  }

  @Override
  public Ingest listener(IngestListener listener, long everyRows) {
    InvalidArgumentException.requireNonNull(listener, "report ingest progress", "listener");
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
    InvalidArgumentException.requireNonNull(key, "set snapshot property", "key");
    InvalidArgumentException.requireNonNull(value, "set snapshot property", "value");
    checkPending();
    if (key.equals(SOURCE_PROPERTY) || key.equals(INGEST_ID_PROPERTY) || key.equals(ENGINE_PROPERTY)) {
      throw new InvalidArgumentException("Cannot set snapshot property: reserved key: " + key);
    }
    snapshotProperties.put(key, value);
    return this;
  }

  @Override
  public Ingest toBranch(String branchName) {
    InvalidArgumentException.requireNonNull(branchName, "ingest to branch", "branchName");
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

  /**
   * One execution: reads or generates the rows into data files (the schema evolving as it goes),
   * then commits them as one snapshot. Every file written is deleted when anything fails, except
   * when the commit's outcome is unknown.
   */
  private final class Run {
    private final boolean dryRun;
    private final long startNanos = System.nanoTime();
    private final Table table;
    private final IngestAutoEvolution evolution;
    private final TrackingFileIO io;
    private final IngestProgressTracker progress;
    private List<DataFile> files = List.of();

    Run(boolean dryRun) {
      this.dryRun = dryRun;
      this.table = handle.translating("refresh table " + handle.id(), handle::refreshed);
      this.evolution = new IngestAutoEvolution(handle.id(), table);
      this.io = new TrackingFileIO(table.io());
      this.progress = new IngestProgressTracker(listener, everyRows, io, startNanos);
    }

    IngestResult execute() {
      boolean written = false;
      try {
        Optional<EngineIngest.Written> engine = dryRun || sourceFile == null ? Optional.empty()
            : new EngineIngest(handle.id(), table, evolution.schema(), io, progress, handle.workers())
                .write(sourceKind.equals("csv") ? FileIngestEngine.Format.CSV : FileIngestEngine.Format.PARQUET,
                    sourceFile);
        if (engine.isPresent()) {
          files = engine.get().files();
          progress.setRows(engine.get().rows());
          snapshotProperties.put(ENGINE_PROPERTY, engine.get().engine());
        } else if (sourceKind.equals("synthetic")) {
          files = new SyntheticWriter(handle.id(), table, evolution.schema(), io, progress, handle.workers())
              .write(syntheticRows, syntheticSeed, syntheticWriters, dryRun);
        } else {
          try (RowSource rowSource = source.get()) {
            files = new SourceWriter(table, io, evolution, autoEvolve, progress, dryRun).write(rowSource);
          }
        }
        if (autoEvolve) {
          evolution.addNullOnlyColumns();
        }
        written = true;
      } catch (RuntimeException e) {
        throw Errors.translate(e, "ingest into table " + handle.id());
      } finally {
        if (!written) {
          io.deleteCreatedFiles(handle.id());
        }
      }

      if (dryRun) {
        return finish(OptionalLong.empty(), evolution.addedColumns());
      }
      if (progress.rows() == 0) {
        io.deleteCreatedFiles(handle.id());
        return finish(OptionalLong.empty(), List.of());
      }
      long snapshotId;
      try {
        snapshotId = new IngestCommit(handle, sourceKind, snapshotProperties, branch).commit(files, evolution);
      } catch (CommitStateUnknownException e) {
        // the commit may reference the files: keep them, and never retry blindly
        throw e;
      } catch (RuntimeException | Error e) {
        io.deleteCreatedFiles(handle.id());
        throw e;
      }
      return finish(OptionalLong.of(snapshotId), evolution.addedColumns());
    }

    private IngestResult finish(OptionalLong snapshotId, List<String> addedColumns) {
      Duration elapsed = progress.elapsed();
      long bytes = 0;
      for (DataFile file : files) {
        bytes += file.fileSizeInBytes();
      }
      progress.finished(files.size(), bytes, elapsed);
      long rows = progress.rows();
      if (snapshotId.isPresent()) {
        LOG.info("Committed ingest into {}: {} rows in {} files ({} bytes){}, snapshot {}, {} ms", handle.id(),
            rows, files.size(), bytes, addedColumns.isEmpty() ? "" : ", added columns " + addedColumns,
            snapshotId.getAsLong(), elapsed.toMillis());
      } else {
        LOG.debug("Ingest into {} committed nothing ({}): {} rows, {} ms", handle.id(),
            dryRun ? "dry run" : "no rows", rows, elapsed.toMillis());
      }
      return new IngestResult(snapshotId, rows, snapshotId.isPresent() ? files.size() : 0,
          snapshotId.isPresent() ? bytes : 0, addedColumns, elapsed);
    }
  }
}
