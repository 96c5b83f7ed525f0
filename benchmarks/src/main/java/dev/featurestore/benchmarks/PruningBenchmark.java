package dev.featurestore.benchmarks;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.PruningReport;
import dev.featurestore.QueryResult;
import dev.featurestore.Row;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableId;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * {@code pruning}: a query over one day of a 365-day table partitioned by day(event_time),
 * {@code -DrowsPerDay=} (10,000) rows a day, one file a day.
 *
 * <ul>
 *   <li>ours: {@code table.query().filter(<that day>).execute()}, every row read (partition pruning);
 *   <li>baseline: the unpruned scan: every row of the table read, the same filter applied in Java.
 * </ul>
 *
 * Prints the files read vs the files in the table (from the scan stats and the pruning report).
 * Settings: {@code -Dwarmups=} (1), {@code -Diterations=} (5).
 */
final class PruningBenchmark {
  static final String NAME = "pruning";
  private static final OffsetDateTime DAY0 = OffsetDateTime.parse("2026-01-01T00:00:00Z");

  private PruningBenchmark() {}

  static void run() throws Exception {
    int rowsPerDay = Harness.intSetting("rowsPerDay", 10_000);
    int days = Harness.intSetting("days", 365);
    int warmups = Harness.intSetting("warmups", 1);
    int iterations = Harness.intSetting("iterations", 5);
    Harness.progress("%s: days=%d rowsPerDay=%d", NAME, days, rowsPerDay);
    Path dir = Harness.tempDir(NAME);
    try (FeatureStore store = FeatureStore.openLocal(dir)) {
      FeatureTable table = store.createTable(TableDefinition.builder(TableId.of("bench", "pruning"), SyntheticFeatures.schema())
          .partitionBy(PartitionSpecBuilder.spec(b -> b.day("event_time"))).build());
      Table iceberg = table.unwrap(Table.class);
      long start = System.nanoTime();
      for (int month = 0; month * 30 < days; month++) {
        int from = month * 30;
        int to = Math.min(days, from + 30);
        IcebergWriter.append(iceberg, rows(iceberg, from, to, rowsPerDay));
      }
      table.refresh();
      Harness.note("%s: %d rows in %d days written in %.1f s", NAME, (long) days * rowsPerDay, days,
          Harness.elapsedNanos(start) / 1e9);
      int day = days / 2;
      OffsetDateTime dayStart = DAY0.plusDays(day);
      long lo = ChronoUnit.MICROS.between(OffsetDateTime.parse("1970-01-01T00:00:00Z"), dayStart);
      long hi = lo + 86_400_000_000L;
      Expression oneDay = Expressions.and(Expressions.greaterThanOrEqual("event_time", lo), Expressions.lessThan("event_time", hi));
      PruningReport report = table.explainPruning(oneDay);
      Harness.note("%s: pruning report: %d of %d files kept (%d dropped by partition)", NAME, report.kept().size(),
          report.files().size(), report.dropped().stream().filter(f -> f.outcome().name().equals("DROPPED_BY_PARTITION")).count());
      long[] stats = new long[3];
      Harness.Medians medians = Harness.alternate(NAME, "ms", warmups, iterations, i -> {
        long t0 = System.nanoTime();
        long n = 0;
        try (QueryResult result = table.query().filter(oneDay).execute()) {
          for (Row row : result) {
            n++;
          }
          stats[0] = result.scanStats().plannedDataFiles();
          stats[1] = result.scanStats().totalDataFiles();
        }
        stats[2] = n;
        return Harness.elapsedNanos(t0) / 1e6;
      }, i -> {
        long t0 = System.nanoTime();
        long n = 0;
        try (QueryResult result = table.query().execute()) {
          for (Row row : result) {
            OffsetDateTime t = (OffsetDateTime) row.get("event_time");
            if (!t.isBefore(dayStart) && t.isBefore(dayStart.plusDays(1))) {
              n++;
            }
          }
        }
        if (n != stats[2] && stats[2] != 0) {
          throw new IllegalStateException("Cannot compare scans: rows differ: " + n + " vs " + stats[2]);
        }
        return Harness.elapsedNanos(t0) / 1e6;
      });
      Harness.note("%s: files read %d of %d; rows returned %d", NAME, stats[0], stats[1], stats[2]);
      Harness.result(NAME, medians, "ms");
    } finally {
      Harness.deleteRecursively(dir);
    }
  }

  private static Iterator<Record> rows(Table table, int fromDay, int toDay, int rowsPerDay) {
    Record record = GenericRecord.create(table.schema());
    SplittableRandom random = new SplittableRandom(fromDay);
    long total = (long) (toDay - fromDay) * rowsPerDay;
    return new Iterator<>() {
      long i = 0;

      @Override
      public boolean hasNext() {
        return i < total;
      }

      @Override
      public Record next() {
        int day = fromDay + (int) (i / rowsPerDay);
        record.setField("entity_id", random.nextLong(1_000_000));
        record.setField("event_time", DAY0.plusDays(day).plusSeconds(random.nextInt(86_400)));
        record.setField("feature_a", random.nextDouble());
        record.setField("feature_b", random.nextDouble());
        i++;
        return record;
      }
    };
  }
}
