package dev.featurestore.core.lookup;

import dev.featurestore.BloomFilter;
import dev.featurestore.core.base.BloomKeys;
import dev.featurestore.core.base.ValueConverters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.iceberg.types.Type;
import org.apache.parquet.hadoop.metadata.BlockMetaData;

/**
 * Which files and row groups may hold some of a set of keys: by partition and column statistics
 * (as scan planning decides), then per row group by statistics and the key column's bloom filter.
 * Point lookups and deletes by key both ask here, so forgetting an entity reads what looking it up
 * reads. Uuid bounds are never used (the caller passes a pruning filter without them).
 */
final class KeyCandidates {
  private KeyCandidates() {}

  /**
   * The keys as Iceberg holds them ({@link ValueConverters#internalKey}).
   *
   * @throws dev.featurestore.InvalidArgumentException if a key is null or does not convert
   */
  static List<Object> internalKeys(Schema schema, String keyColumn, List<?> keys, String action) {
    org.apache.iceberg.types.Type type = schema.findType(keyColumn);
    List<Object> internal = new ArrayList<>(keys.size());
    for (Object key : keys) {
      internal.add(ValueConverters.internalKey(type, keyColumn, key, action));
    }
    return internal;
  }

  static Expression keyFilter(String keyColumn, List<Object> internalKeys) {
    return internalKeys.size() == 1
        ? Expressions.equal(keyColumn, internalKeys.get(0))
        : Expressions.in(keyColumn, internalKeys.toArray());
  }

  /** The tasks whose partition and column statistics may match ({@code filter} for partitions, {@code pruning} for stats). */
  static List<FileScanTask> byStatistics(Schema schema, Expression filter, Expression pruning, List<FileScanTask> all) {
    InclusiveMetricsEvaluator metrics = new InclusiveMetricsEvaluator(schema, pruning, true);
    Map<Integer, Evaluator> partitionEvals = new HashMap<>();
    List<FileScanTask> candidates = new ArrayList<>();
    for (FileScanTask task : all) {
      PartitionSpec spec = task.spec();
      Evaluator partition = partitionEvals.computeIfAbsent(spec.specId(),
          id -> new Evaluator(spec.partitionType(), Projections.inclusive(spec, true).project(filter), true));
      if (partition.eval(task.file().partition()) && metrics.eval(task.file())) {
        candidates.add(task);
      }
    }
    return candidates;
  }

  /** The row-group check of one key set: statistics, then the bloom filter. */
  static final class RowGroups {
    private final ParquetMetricsRowGroupFilter stats;
    private final long[] hashes;

    RowGroups(Schema schema, Expression pruning, Type keyType, List<Object> internalKeys) {
      this.stats = new ParquetMetricsRowGroupFilter(schema, pruning, true);
      this.hashes = hashes(keyType, internalKeys);
    }

    /** The indexes of the row groups of the file that may hold a key (none: the file need not be read). */
    int[] mayHold(FooterCache.Footer footer) {
      int[] groups = new int[footer.blocks().size()];
      int n = 0;
      for (int i = 0; i < footer.blocks().size(); i++) {
        BlockMetaData block = footer.blocks().get(i);
        if (stats.shouldRead(footer.schema(), block) && bloomMightContain(footer.keyFilters().get(i), hashes)) {
          groups[n++] = i;
        }
      }
      return java.util.Arrays.copyOf(groups, n);
    }
  }

  /** The Parquet hash of each key, or null when the type's encoding is not hashed here (no bloom check). */
  private static long[] hashes(Type type, List<Object> keys) {
    long[] hashes = new long[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      OptionalLong hash = BloomKeys.hash(type, keys.get(i));
      if (hash.isEmpty()) {
        return null;
      }
      hashes[i] = hash.getAsLong();
    }
    return hashes;
  }

  private static boolean bloomMightContain(BloomFilter filter, long[] hashes) {
    if (filter == null || hashes == null) {
      return true;
    }
    for (long hash : hashes) {
      if (filter.mightContainHash(hash)) {
        return true;
      }
    }
    return false;
  }
}
