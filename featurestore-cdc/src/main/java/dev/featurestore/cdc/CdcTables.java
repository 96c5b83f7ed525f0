package dev.featurestore.cdc;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import dev.featurestore.core.base.TableCoordination;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;

/** The tables' layouts and the high-water marks kept in snapshot summaries. */
final class CdcTables {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CdcTables.class);
  /** Snapshot summary key prefix: {@code featurestore.cdc.shard.<shard>.max-seq}. */
  static final String MARK_PREFIX = "featurestore.cdc.shard.";
  static final String MARK_SUFFIX = ".max-seq";

  static final String COLLECTION = "collection";
  static final String DOC_ID = "doc_id";
  static final String SEQ = "_seq";
  static final String SHARD = "_shard";
  static final String UPDATED_AT = "_updated_at";
  static final String DOC = "_doc";

  private CdcTables() {}

  static Schema changeLogSchema() {
    return new Schema(
        Types.NestedField.required(1, "op", Types.StringType.get(), "insert, update or delete"),
        Types.NestedField.required(2, "seq", Types.LongType.get(), "sequence id within the shard"),
        Types.NestedField.required(3, "shard", Types.StringType.get()),
        Types.NestedField.optional(4, "txn", Types.StringType.get(), "transaction id"),
        Types.NestedField.required(5, "commit_time", Types.TimestampType.withZone(), "when the batch was written for commit"),
        Types.NestedField.required(6, "event_time", Types.TimestampType.withZone(), "when the pipeline accepted the entry"),
        Types.NestedField.required(7, COLLECTION, Types.StringType.get()),
        Types.NestedField.required(8, DOC_ID, Types.StringType.get()),
        Types.NestedField.optional(9, "before", Types.StringType.get(), "before image, JSON"),
        Types.NestedField.optional(10, "after", Types.StringType.get(), "after image, JSON"));
  }

  static Schema currentStateSchema() {
    return new Schema(
        Types.NestedField.required(1, COLLECTION, Types.StringType.get()),
        Types.NestedField.required(2, DOC_ID, Types.StringType.get()),
        Types.NestedField.required(3, SEQ, Types.LongType.get(), "sequence id of the last change"),
        Types.NestedField.required(4, SHARD, Types.StringType.get(), "shard of the last change"),
        Types.NestedField.required(5, UPDATED_AT, Types.TimestampType.withZone(), "commit time of the last change"),
        Types.NestedField.optional(6, DOC, Types.StringType.get(), "the whole document, JSON"));
  }

  /**
   * @throws InvalidArgumentException if {@code actual} lacks a column of {@code expected}, or has
   *     it with another type ({@code role}: the mode's table, for the message)
   */
  static void checkColumns(Schema actual, Schema expected, String name, String role) {
    for (Types.NestedField field : expected.columns()) {
      Types.NestedField found = actual.findField(field.name());
      if (found == null || !found.type().equals(field.type())) {
        throw new InvalidArgumentException("Cannot use table " + name + " as a CDC " + role + ": missing column: "
            + field.name() + " " + field.type());
      }
    }
  }

  static PartitionSpec currentStateSpec(Schema schema, int buckets) {
    return PartitionSpec.builderFor(schema).bucket(DOC_ID, buckets).build();
  }

  static String markKey(String shard) {
    return MARK_PREFIX + shard + MARK_SUFFIX;
  }

  /**
   * The highest sequence id of {@code shard} committed to {@code table}: the maximum of the mark
   * in the table properties (change logs keep it there, updated in the same commit) and the marks
   * in the current snapshot's ancestry (a commit of another shard may carry an older copy of this
   * shard's mark forward, never a newer one, so the maximum is the truth).
   */
  static OptionalLong readMark(Table table, String shard) {
    Long mark = readMarks(table).get(shard);
    return mark == null ? OptionalLong.empty() : OptionalLong.of(mark);
  }

  /** Every shard's mark in {@code table}, by shard id, read as {@link #readMark} reads one. */
  static Map<String, Long> readMarks(Table table) {
    Map<String, Long> marks = new java.util.TreeMap<>();
    java.util.function.BiConsumer<String, String> take = (k, v) -> {
      if (k.startsWith(MARK_PREFIX) && k.endsWith(MARK_SUFFIX) && k.length() > MARK_PREFIX.length() + MARK_SUFFIX.length()) {
        marks.merge(k.substring(MARK_PREFIX.length(), k.length() - MARK_SUFFIX.length()), Long.parseLong(v), Math::max);
      }
    };
    table.properties().forEach(take);
    for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
      if (s.summary() != null) {
        s.summary().forEach(take);
      }
    }
    return marks;
  }

  /** Every shard mark in the current snapshot's summary, to carry forward. */
  static void carryMarks(Table table, java.util.function.BiConsumer<String, String> into) {
    Snapshot current = table.currentSnapshot();
    if (current == null || current.summary() == null) {
      return;
    }
    current.summary().forEach((k, v) -> {
      if (k.startsWith(MARK_PREFIX) && k.endsWith(MARK_SUFFIX)) {
        into.accept(k, v);
      }
    });
  }

  /** Opens a target table, creating it (with the mode's layout) if missing. */
  static Table open(CdcSettings s, TableId id, CdcMode mode) {
    FeatureStore store = s.store();
    FeatureTable table = store.findTable(id).orElseGet(() -> {
      TableDefinition.Builder def;
      if (mode == CdcMode.CHANGE_LOG) {
        def = TableDefinition.builder(id, CdcTables.changeLogSchema());
      } else if (s.layout() == CurrentStateLayout.MERGE_ON_READ) {
        // unpartitioned: one data file and one Puffin file per commit (buckets would split every batch)
        def = TableDefinition.builder(id, CdcTables.currentStateSchema()).formatVersion(3)
            .property(CurrentStateLayout.PROPERTY, CurrentStateLayout.MERGE_ON_READ.value());
      } else {
        def = TableDefinition.builder(id, CdcTables.currentStateSchema())
            .partitionSpec(CdcTables.currentStateSpec(CdcTables.currentStateSchema(), s.buckets()))
            .property(CurrentStateLayout.PROPERTY, CurrentStateLayout.COPY_ON_WRITE.value());
      }
      def.property(TableProperties.PARQUET_COMPRESSION, s.compression().codec());
      if (s.tablesLocation() != null) {
        def.location(s.tablesLocation() + "/" + id.namespace() + "/" + id.name());
      }
      try {
        return store.createTable(def.build());
      } catch (dev.featurestore.TableAlreadyExistsException e) {
        return store.table(id); // another shard created it first
      }
    });
    return table.unwrap(Table.class);
  }


  /**
   * Checks a tables location as given to the builder: not blank, no {@code ..} segment, no
   * backslash, no control character.
   */
  static String checkLocation(String location) {
    InvalidArgumentException.requireNonNull(location, "build CDC pipeline", "location");
    String what = "Cannot set CDC tables location: ";
    InvalidArgumentException.check(!location.isBlank(), what + "blank: '%s'", location);
    InvalidArgumentException.check(location.indexOf('\\') < 0 && location.chars().noneMatch(Character::isISOControl),
        what + "backslash or control character: %s", location.replaceAll("\\p{Cntrl}", "?"));
    for (String segment : location.split("/")) {
      InvalidArgumentException.check(!segment.equals(".."), what + "'..' segment: %s", location);
    }
    return location;
  }

  /**
   * The absolute base of a tables location: as it is if absolute (a URI or an absolute path), else
   * a prefix beside the store's warehouse ({@code <root>/<location>}, {@code s3://<bucket>/<prefix><location>}).
   *
   * @throws InvalidArgumentException if the location is relative and the store has no warehouse
   */
  static String resolveLocation(FeatureStore store, String location) {
    String base = location;
    boolean absolute = location.contains("://") || location.startsWith("/") || location.startsWith("file:")
        || location.matches("[A-Za-z]:/.*");
    if (!absolute) {
      String warehouse = store.config().warehouseLocation().orElseThrow(() -> new InvalidArgumentException(
          "Cannot set CDC tables location: a relative location needs a store with its own warehouse: " + location));
      String root = stripSlashes(warehouse);
      root = root.substring(0, root.lastIndexOf('/') + 1); // beside warehouse/
      base = root + location;
    }
    return stripSlashes(base);
  }

  private static String stripSlashes(String location) {
    String out = location;
    while (out.endsWith("/") && !out.endsWith("://")) {
      out = out.substring(0, out.length() - 1);
    }
    return out;
  }

  /**
   * The store's coordination of a table (commit lock, compactions' row moves), shared with the
   * store's maintenance of it; a store of another implementation gets a lock of its own (its
   * compactions then conflict with the stream's commits instead of waiting for them).
   */
  static TableCoordination coordination(FeatureStore store, TableId id) {
    try {
      return store.table(id).unwrap(TableCoordination.class);
    } catch (dev.featurestore.InvalidArgumentException e) {
      return new TableCoordination();
    }
  }

  /** Warms up each writer's path (see {@link TableWriter#warmUp()}); a failure only costs speed. */
  static void warmUp(List<TableWriter> writers, String shard) {
    for (TableWriter writer : writers) {
      long start = System.nanoTime();
      try {
        writer.warmUp();
        LOG.debug("CDC shard {}: warmed up the write path of {} in {} ms", shard, writer.name(),
            (System.nanoTime() - start) / 1_000_000);
      } catch (RuntimeException | LinkageError e) {
        LOG.debug("CDC shard {}: warming up the write path failed: {}", shard, e.toString());
      }
    }
  }

  /** The writers of a pipeline, in commit order; {@code changeLogOnly} is set when the change log is the only target. */
  record Writers(List<TableWriter> all, ChangeLogWriter changeLogOnly) {}

  /** Opens (or creates) the target tables, checks their layout and builds their writers. */
  static Writers writers(CdcSettings s, Hooks hooks, PendingFiles pending) {
    List<TableWriter> writers = new ArrayList<>();
    String codec = s.compression().codec();
    ChangeLogWriter changeLog = null;
    if (s.changeLog() != null) {
      Table t = open(s, s.changeLog(), CdcMode.CHANGE_LOG);
      ChangeLogWriter.checkSchema(t.schema(), s.changeLog().toString());
      changeLog = new ChangeLogWriter(t, s.changeLog().toString(), s.shard(), codec, hooks, pending,
          coordination(s.store(), s.changeLog()));
      writers.add(changeLog);
    }
    if (s.currentState() != null) {
      Table t = open(s, s.currentState(), CdcMode.CURRENT_STATE);
      CurrentStateWriter.checkTable(t, s.currentState().toString());
      // the table's own layout, whatever the builder asked for a new table
      boolean mergeOnRead = CurrentStateLayout.ofProperty(t.properties().get(CurrentStateLayout.PROPERTY))
          == CurrentStateLayout.MERGE_ON_READ;
      writers.add(mergeOnRead
          ? new MergeOnReadStateWriter(t, s.currentState().toString(), s.shard(), codec, s.evolveSchema(),
              s.maxTypedColumns(), hooks, pending, coordination(s.store(), s.currentState()))
          : new CurrentStateWriter(t, s.currentState().toString(), s.shard(), codec, s.evolveSchema(),
              s.maxTypedColumns(), hooks, pending));
    }
    return new Writers(List.copyOf(writers), writers.size() == 1 ? changeLog : null);
  }
}
