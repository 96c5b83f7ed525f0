package dev.featurestore.core.lookup;


import dev.featurestore.BatchLookupResult;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.LookupResult;
import dev.featurestore.LookupStats;
import dev.featurestore.NotFoundException;
import dev.featurestore.PointLookup;
import dev.featurestore.SnapshotNotFoundException;
import dev.featurestore.core.base.DeletedPositions;
import dev.featurestore.core.base.TableHandle;
import dev.featurestore.core.base.UuidBounds;
import dev.featurestore.core.base.ValueConverters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDataUtil;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * A point lookup: candidate files by partition and column statistics (as scan planning decides),
 * newest first; in each, row groups by statistics and the key's bloom filter; only files with a
 * row group left are read, through Iceberg's Parquet reader with the same filter (which skips the
 * other row groups). Stops as soon as no remaining file can hold a later row. Uuid bounds are never
 * used (apache/iceberg#14216); a NaN key is refused (NaN equals nothing). Immutable.
 */
final class KeyLookup implements PointLookup {
  private final TableHandle handle;
  private final String keyColumn;
  private final FooterCache cache;
  private final String latestBy;
  private final Instant atOrBefore;
  private final Long snapshotId;
  private final Instant asOf;
  private final List<String> columns;

  KeyLookup(TableHandle handle, String keyColumn, FooterCache cache) {
    this(handle, keyColumn, cache, null, null, null, null, null);
  }

  private KeyLookup(TableHandle handle, String keyColumn, FooterCache cache, String latestBy, Instant atOrBefore,
      Long snapshotId, Instant asOf, List<String> columns) {
    this.handle = handle;
    this.keyColumn = keyColumn;
    this.cache = cache;
    this.latestBy = latestBy;
    this.atOrBefore = atOrBefore;
    this.snapshotId = snapshotId;
    this.asOf = asOf;
    this.columns = columns;
  }

  @Override
  public PointLookup latestBy(String column) {
    InvalidArgumentException.requireNonNull(column, "order lookup", "column");
    Types.NestedField field = handle.table().schema().findField(column);
    if (field == null || !field.type().isPrimitiveType()) {
      throw new InvalidArgumentException("Cannot order lookup: unknown or non-primitive column: " + column);
    }
    return new KeyLookup(handle, keyColumn, cache, column, atOrBefore, snapshotId, asOf, columns);
  }

  @Override
  public PointLookup atOrBefore(Instant time) {
    InvalidArgumentException.requireNonNull(time, "look up rows as of a time", "time");
    return new KeyLookup(handle, keyColumn, cache, latestBy, time, snapshotId, asOf, columns);
  }

  @Override
  public PointLookup current() {
    return new KeyLookup(handle, keyColumn, cache, latestBy, atOrBefore, null, null, columns);
  }

  @Override
  public PointLookup asOfSnapshot(long id) {
    return new KeyLookup(handle, keyColumn, cache, latestBy, atOrBefore, id, null, columns);
  }

  @Override
  public PointLookup asOf(Instant time) {
    InvalidArgumentException.requireNonNull(time, "look up rows", "time");
    return new KeyLookup(handle, keyColumn, cache, latestBy, atOrBefore, null, time, columns);
  }

  @Override
  public PointLookup select(String... selected) {
    InvalidArgumentException.requireNonNull(selected, "select columns", "columns");
    if (selected.length == 0) {
      throw new InvalidArgumentException("Cannot select columns: no column given");
    }
    return new KeyLookup(handle, keyColumn, cache, latestBy, atOrBefore, snapshotId, asOf, Arrays.asList(selected));
  }

  @Override
  public LookupResult get(Object key) {
    InvalidArgumentException.requireNonNull(key, "look up rows", "key");
    BatchLookupResult batch = run(List.of(key));
    Map<String, Object> row = batch.rows().values().stream().findFirst().orElse(null);
    return new LookupResult(key, Optional.ofNullable(row), batch.stats());
  }

  @Override
  public BatchLookupResult getAll(Collection<?> keys) {
    InvalidArgumentException.requireNonNull(keys, "look up rows", "keys");
    if (keys.isEmpty()) {
      throw new InvalidArgumentException("Cannot look up rows: no key given");
    }
    return run(new java.util.ArrayList<>(keys)); // not List.copyOf: a null key is refused by name, not by an NPE
  }

  /** One candidate row: the row, its ordering value, and its file's data sequence number and position. */
  private record Hit(Map<String, Object> row, Comparable<Object> order, long sequence, long position) {}

  private BatchLookupResult run(List<?> keys) {
    long start = System.nanoTime();
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    String action = "look up rows of table " + handle.id();
    if (table.schema().findField(keyColumn) == null) {
      throw new NotFoundException("Cannot " + action + ": key column does not exist: " + keyColumn);
    }
    // converted before anything is read, so a bad key fails the same on an empty table
    List<Object> internalKeys = KeyCandidates.internalKeys(table.schema(), keyColumn, keys, action);
    for (int i = 0; i < keys.size(); i++) {
      InvalidArgumentException.check(!isNaN(internalKeys.get(i)),
          "Cannot look up rows of table %s: NaN equals no key (IEEE 754); find NaN rows with "
              + "query().filter(Expressions.isNaN(\"%s\")): %s", handle.id(), keyColumn, keys.get(i));
    }
    Snapshot snapshot = snapshot(table);
    if (snapshot == null) {
      return new BatchLookupResult(Map.of(), new LookupStats(-1, keys.size(), 0, 0, 0, 0, 0, 0,
          Duration.ofNanos(System.nanoTime() - start)));
    }
    return handle.translating(action, () -> lookup(table, snapshot, keys, internalKeys, start));
  }

  private static boolean isNaN(Object key) {
    return (key instanceof Double d && d.isNaN()) || (key instanceof Float f && f.isNaN());
  }

  private Snapshot snapshot(Table table) {
    String prefix = "Cannot look up rows of table " + handle.id() + ": ";
    if (snapshotId != null) {
      Snapshot s = table.snapshot(snapshotId);
      if (s == null) {
        throw new SnapshotNotFoundException(prefix + "unknown snapshot id: " + snapshotId);
      }
      return s;
    }
    if (asOf != null) {
      Long id = SnapshotUtil.nullableSnapshotIdAsOfTime(table, asOf.toEpochMilli());
      if (id == null) {
        throw new SnapshotNotFoundException(prefix + "time is before the first snapshot: " + asOf);
      }
      return table.snapshot(id);
    }
    return table.currentSnapshot();
  }

  private BatchLookupResult lookup(Table table, Snapshot snapshot, List<?> keys, List<Object> internalKeys, long start) {
    Schema schema = table.schema();
    Types.NestedField keyField = schema.findField(keyColumn);
    // rows are matched to keys by internal value (micros, days; bytes by content)
    ValueConverters.Converter keyToInternal = ValueConverters.toInternal(keyField.type());
    Expression filter = KeyCandidates.keyFilter(keyColumn, internalKeys);
    Types.NestedField orderField = latestBy == null ? null : schema.findField(latestBy);
    if (atOrBefore != null) {
      if (orderField == null) {
        throw new InvalidArgumentException("Cannot look up rows as of a time: no latestBy column set");
      }
      filter = Expressions.and(filter, Expressions.lessThanOrEqual(latestBy, timeLiteral(orderField, atOrBefore)));
    }
    Schema projected = project(schema);
    Schema readSchema = TypeUtil.join(projected, schema.select(
        orderField == null ? List.of(keyColumn) : List.of(keyColumn, latestBy)));

    List<FileScanTask> all = cache.files(table, snapshot.snapshotId());
    // partition values are exact; column and row-group bounds of uuids are not (signed in Iceberg
    // 1.12, unsigned in Parquet), so statistics prune without uuid predicates; rows are still checked
    Expression pruning = UuidBounds.pruningFilter(filter, schema, true);
    List<FileScanTask> candidates = KeyCandidates.byStatistics(schema, filter, pruning, all);
    // newest first: by the upper bound of the ordering column, else by commit order
    Comparator<FileScanTask> newestFirst = orderField == null
        ? Comparator.comparingLong((FileScanTask t) -> sequence(t.file())).reversed()
        : Comparator.comparing((FileScanTask t) -> upper(t.file(), orderField), Comparator.nullsLast(Comparator.reverseOrder()));
    candidates.sort(newestFirst);

    KeyCandidates.RowGroups rowGroups = new KeyCandidates.RowGroups(schema, pruning, keyField.type(), internalKeys);
    // evaluates internal values: the generic reader's records through the wrapper, RowGroupScan's as they are
    Evaluator rowFilter = new Evaluator(readSchema.asStruct(), filter, true);
    int keyPosition = position(readSchema, keyColumn);
    int orderPosition = orderField == null ? -1 : position(readSchema, latestBy);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(readSchema.asStruct());
    Map<Object, Hit> best = new LinkedHashMap<>();
    int filesRead = 0;
    int checked = 0;
    int groupsRead = 0;
    long scanned = 0;
    for (FileScanTask task : candidates) {
      DataFile file = task.file();
      if (best.size() == internalKeys.size() && !canHoldLater(file, orderField, best)) {
        break; // every key found, and this and every later candidate is older
      }
      FooterCache.Footer footer = cache.footer(table, file);
      checked += footer.blocks().size();
      int[] groups = rowGroups.mayHold(footer);
      if (groups.length == 0) {
        continue;
      }
      filesRead++;
      groupsRead += groups.length;
      long sequence = sequence(file);
      if (RowGroupScan.applies(task, footer, readSchema)) {
        // a file's vector alone (a lookup reads few files: no range of other files' vectors)
        DeletedPositions.Cursor deleted = task.deletes().isEmpty()
            ? DeletedPositions.Cursor.NONE : new DeletedPositions(table.io(), List.of(task)).of(task);
        scanned += RowGroupScan.scan(table.io(), file, footer, groups, readSchema, deleted, (row, position) -> {
          if (rowFilter.eval(row)) {
            Object key = copied(row.get(keyPosition, Object.class));
            @SuppressWarnings("unchecked")
            Comparable<Object> order = orderField == null
                ? null : (Comparable<Object>) internalToGeneric(readSchema, orderPosition, row);
            Hit hit = new Hit(toMap(row, readSchema, projected), order, sequence, position);
            best.merge(normalize(key), hit, (a, b) -> later(b, a) ? b : a);
          }
        });
        continue;
      }
      try (CloseableIterable<Record> records = open(table, schema, readSchema, task, pruning);
           CloseableIterator<Record> it = records.iterator()) {
        long position = 0;
        while (it.hasNext()) {
          Record record = it.next();
          position++;
          if (!rowFilter.eval(wrapper.wrap(record))) {
            continue;
          }
          Object key = record.getField(keyColumn);
          key = key == null ? null : keyToInternal.convert(key);
          @SuppressWarnings("unchecked")
          Comparable<Object> order = orderField == null ? null : (Comparable<Object>) record.getField(latestBy);
          Hit hit = new Hit(toMap(record, projected), order, sequence, position);
          best.merge(normalize(key), hit, (a, b) -> later(b, a) ? b : a);
        }
        scanned += position; // rows the reader decoded: only those of the row groups it kept
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Map<Object, Map<String, Object>> rows = new LinkedHashMap<>();
    best.forEach((k, hit) -> rows.put(k, hit.row()));
    // answer under the keys the caller passed
    Map<Object, Map<String, Object>> byCallerKey = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      Map<String, Object> row = rows.get(normalize(internalKeys.get(i)));
      if (row != null) {
        byCallerKey.put(keys.get(i), row);
      }
    }
    LookupStats stats = new LookupStats(snapshot.snapshotId(), keys.size(), all.size(), candidates.size(), filesRead,
        checked, groupsRead, scanned, Duration.ofNanos(System.nanoTime() - start));
    return new BatchLookupResult(byCallerKey, stats);
  }

  private static long sequence(DataFile file) {
    Long seq = file.dataSequenceNumber();
    return seq == null ? 0 : seq;
  }

  private static boolean later(Hit a, Hit b) {
    if (a.order() != null || b.order() != null) {
      if (b.order() == null) {
        return true;
      }
      if (a.order() == null) {
        return false;
      }
      int c = a.order().compareTo(b.order());
      if (c != 0) {
        return c > 0;
      }
    }
    if (a.sequence() != b.sequence()) {
      return a.sequence() > b.sequence();
    }
    return a.position() > b.position();
  }

  /** Whether a file may hold a row later than one already found for every key. */
  private boolean canHoldLater(DataFile file, Types.NestedField orderField, Map<Object, Hit> best) {
    if (orderField == null) {
      long seq = sequence(file);
      return best.values().stream().anyMatch(h -> h.sequence() <= seq);
    }
    Comparable<Object> upper = upper(file, orderField);
    if (upper == null) {
      return true;
    }
    return best.values().stream().anyMatch(h -> h.order() == null || h.order().compareTo(upper) <= 0);
  }

  /** The upper bound of the ordering column in a file, as the Java value a record holds. */
  @SuppressWarnings("unchecked")
  private static Comparable<Object> upper(DataFile file, Types.NestedField field) {
    ByteBuffer bound = file.upperBounds() == null ? null : file.upperBounds().get(field.fieldId());
    if (bound == null) {
      return null;
    }
    Object internal = Conversions.fromByteBuffer(field.type(), bound);
    return (Comparable<Object>) javaValue(field.type(), internal);
  }

  /** Converts an internal value (micros, days) to what generic records hold. */
  private static Object javaValue(Type type, Object internal) {
    if (type.typeId() == Type.TypeID.TIMESTAMP) {
      Instant instant = Instant.EPOCH.plus((Long) internal, ChronoUnit.MICROS);
      return ((Types.TimestampType) type).shouldAdjustToUTC()
          ? instant.atOffset(java.time.ZoneOffset.UTC)
          : java.time.LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), java.time.ZoneOffset.UTC);
    }
    if (type.typeId() == Type.TypeID.DATE) {
      return java.time.LocalDate.ofEpochDay((Integer) internal);
    }
    if (internal instanceof CharSequence s) {
      return s.toString();
    }
    return internal;
  }

  /**
   * Keys compare by internal value: strings as String, timestamps as micros, bytes by content.
   */
  private static Object normalize(Object key) {
    if (key instanceof CharSequence s) {
      return s.toString();
    }
    return key;
  }

  private static Object timeLiteral(Types.NestedField field, Instant time) {
    return switch (field.type().typeId()) {
      case TIMESTAMP -> ChronoUnit.MICROS.between(Instant.EPOCH, time);
      case DATE -> (int) (time.getEpochSecond() / 86_400);
      default -> throw new InvalidArgumentException(
          "Cannot look up rows as of a time: latestBy column is not a timestamp or date: " + field.name());
    };
  }

  private Schema project(Schema schema) {
    if (columns == null) {
      return schema;
    }
    for (String column : columns) {
      if (schema.findField(column) == null) {
        throw new NotFoundException("Cannot select column: column does not exist: " + column);
      }
    }
    return schema.select(columns);
  }

  private static CloseableIterable<Record> open(Table table, Schema tableSchema, Schema readSchema, FileScanTask task,
      Expression filter) {
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, tableSchema, readSchema);
    Schema required = deletes.requiredSchema();
    CloseableIterable<Record> records = FormatModelRegistry
        .readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
        .project(required)
        .caseSensitive(true)
        .filter(filter) // Iceberg skips row groups by statistics, dictionaries and bloom filters
        .build();
    return deletes.filter(records);
  }

  private static int position(Schema schema, String column) {
    List<Types.NestedField> fields = schema.columns();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(column)) {
        return i;
      }
    }
    throw new IllegalStateException("Cannot find column in read schema: " + column);
  }

  /** A value of a row of internal values, as a generic record holds it (a copy where the reader reuses buffers). */
  private static Object internalToGeneric(Schema readSchema, int position, StructLike row) {
    Object value = copied(row.get(position, Object.class));
    return value == null ? null : GenericDataUtil.internalToGeneric(readSchema.columns().get(position).type(), value);
  }

  /** The value, or a copy of a buffer (the reader reuses them). */
  private static Object copied(Object value) {
    if (value instanceof ByteBuffer buffer) {
      ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
      copy.put(buffer.duplicate()).flip();
      return copy;
    }
    return value;
  }

  /** The projected columns of a row of internal values (read with {@code readSchema}), as generic values. */
  private static Map<String, Object> toMap(StructLike row, Schema readSchema, Schema projected) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Types.NestedField field : projected.columns()) {
      values.put(field.name(), internalToGeneric(readSchema, position(readSchema, field.name()), row));
    }
    return values;
  }

  private static Map<String, Object> toMap(Record record, Schema projected) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (Types.NestedField field : projected.columns()) {
      row.put(field.name(), record.getField(field.name()));
    }
    return row;
  }

  @Override
  public String toString() {
    return "PointLookup{table=" + handle.id() + ", key=" + keyColumn + ", latestBy=" + latestBy + "}";
  }
}
