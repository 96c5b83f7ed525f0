package dev.featurestore.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.featurestore.FeatureTable;
import dev.featurestore.QueryResult;
import dev.featurestore.core.testing.LocalStoreTest;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Property: for random filters (eq, in, lt, lte, gt, gte, between, is null, starts with, and/or),
 * the pruned scan returns exactly the rows of a full read filtered in plain Java, and never reads
 * a file the pruning report dropped. (No partition on {@code cat}: Iceberg 1.12's residual
 * evaluation throws on startsWith over a null partition value; see PruningTest.)
 */
class PruningPropertyTest extends LocalStoreTest {
  private static final String[] CATS = {"apple", "banana", "blueberry", "cherry", "cranberry", null};
  /** One generated row, kept in Java to filter independently of Iceberg. */
  record R(long id, OffsetDateTime ts, String cat, Double score) {}

  /** A filter and the same condition in Java. */
  record F(Expression expr, Predicate<R> java) {}

  @Test
  void prunedScan_equalsFullScanFilteredInJava() {
    Random random = new Random(7);
    FeatureTable table = PruneTables.create(store, "property", b -> b.day("ts").bucket("id", 3));
    List<R> all = new ArrayList<>();
    java.util.Map<R, String> fileOf = new java.util.IdentityHashMap<>();
    for (int batch = 0; batch < 3; batch++) {
      List<R> batchRows = new ArrayList<>();
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        R r = new R(random.nextInt(200), PruneTables.BASE.plusHours(random.nextInt(24 * 6)),
            CATS[random.nextInt(CATS.length)], random.nextInt(5) == 0 ? null : (double) random.nextInt(100));
        all.add(r);
        batchRows.add(r);
        records.add(TestTables.record(table, "id", r.id(), "ts", r.ts(), "cat", r.cat(), "score", r.score()));
      }
      List<org.apache.iceberg.DataFile> files = TestTables.append(table, records);
      for (R r : batchRows) {
        java.util.Map<String, Object> values = new java.util.HashMap<>();
        values.put("id", r.id());
        values.put("ts", r.ts());
        String path = table.partitionPath(values);
        fileOf.put(r, files.stream().filter(f -> f.location().contains("/" + path + "/"))
            .findFirst().orElseThrow().location());
      }
    }
    long prunedAway = 0;
    int totalFiles = table.explainPruning(Expressions.alwaysTrue()).files().size();
    for (int n = 0; n < 120; n++) {
      F filter = filter(random, 2);
      // pruning is sound: every file holding a matching row is kept
      java.util.Set<String> kept = new java.util.HashSet<>();
      table.explainPruning(filter.expr()).kept().forEach(f -> kept.add(f.location()));
      List<Long> expected = all.stream().filter(filter.java()).map(R::id).sorted().toList();
      List<Long> fromKeptFiles = all.stream().filter(r -> kept.contains(fileOf.get(r)))
          .filter(filter.java()).map(R::id).sorted().toList();
      assertThat(fromKeptFiles).as("pruning of " + filter.expr()).isEqualTo(expected);
      assertThat(kept).isEqualTo(PruneTables.planned(table, filter.expr()));
      prunedAway += totalFiles - kept.size();
      // and the pruned scan returns exactly the rows of a full scan filtered in Java
      List<Long> actual = new ArrayList<>();
      try (QueryResult rows = table.query().filter(filter.expr()).execute()) {
        rows.forEach(row -> actual.add((Long) row.get("id")));
        assertThat(rows.scanStats().plannedDataFiles()).isEqualTo(kept.size());
      }
      actual.sort(null);
      assertThat(actual).as(filter.expr().toString()).isEqualTo(expected);
    }
    assertThat(prunedAway).as("files pruned over all filters").isPositive();
  }

  private static F filter(Random random, int depth) {
    if (depth > 0 && random.nextInt(3) == 0) {
      F a = filter(random, depth - 1);
      F b = filter(random, depth - 1);
      return random.nextBoolean()
          ? new F(Expressions.and(a.expr(), b.expr()), a.java().and(b.java()))
          : new F(Expressions.or(a.expr(), b.expr()), a.java().or(b.java()));
    }
    switch (random.nextInt(4)) {
      case 0 -> {
        long v = random.nextInt(210);
        long w = v + random.nextInt(40);
        return switch (random.nextInt(7)) {
          case 0 -> new F(Expressions.equal("id", v), r -> r.id() == v);
          case 1 -> new F(Expressions.in("id", v, w, w + 3), r -> r.id() == v || r.id() == w || r.id() == w + 3);
          case 2 -> new F(Expressions.lessThan("id", v), r -> r.id() < v);
          case 3 -> new F(Expressions.lessThanOrEqual("id", v), r -> r.id() <= v);
          case 4 -> new F(Expressions.greaterThan("id", v), r -> r.id() > v);
          case 5 -> new F(Expressions.greaterThanOrEqual("id", v), r -> r.id() >= v);
          default -> new F(Expressions.and(Expressions.greaterThanOrEqual("id", v), Expressions.lessThanOrEqual("id", w)),
              r -> r.id() >= v && r.id() <= w);
        };
      }
      case 1 -> {
        OffsetDateTime t = PruneTables.BASE.plusMinutes(random.nextInt(60 * 24 * 7));
        long micros = (Long) Literal.of(t.toString()).to(Types.TimestampType.withZone()).value();
        return switch (random.nextInt(3)) {
          case 0 -> new F(Expressions.lessThan("ts", micros), r -> r.ts().isBefore(t));
          case 1 -> new F(Expressions.greaterThanOrEqual("ts", micros), r -> !r.ts().isBefore(t));
          default -> {
            OffsetDateTime u = t.plusHours(random.nextInt(48));
            long uMicros = (Long) Literal.of(u.toString()).to(Types.TimestampType.withZone()).value();
            yield new F(Expressions.and(Expressions.greaterThanOrEqual("ts", micros), Expressions.lessThanOrEqual("ts", uMicros)),
                r -> !r.ts().isBefore(t) && !r.ts().isAfter(u));
          }
        };
      }
      case 2 -> {
        String c = CATS[random.nextInt(CATS.length - 1)];
        String prefix = c.substring(0, 1 + random.nextInt(2));
        return switch (random.nextInt(4)) {
          case 0 -> new F(Expressions.equal("cat", c), r -> c.equals(r.cat()));
          case 1 -> new F(Expressions.startsWith("cat", prefix), r -> r.cat() != null && r.cat().startsWith(prefix));
          case 2 -> new F(Expressions.isNull("cat"), r -> r.cat() == null);
          default -> new F(Expressions.notNull("cat"), r -> r.cat() != null);
        };
      }
      default -> {
        double s = random.nextInt(100);
        return switch (random.nextInt(3)) {
          case 0 -> new F(Expressions.isNull("score"), r -> r.score() == null);
          case 1 -> new F(Expressions.greaterThan("score", s), r -> r.score() != null && r.score() > s);
          default -> new F(Expressions.lessThanOrEqual("score", s), r -> r.score() != null && r.score() <= s);
        };
      }
    }
  }
}
