package dev.featurestore.core;

import static dev.featurestore.core.PublicEntryPointsTest.onNull;
import static dev.featurestore.core.PublicEntryPointsTest.onTable;

import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.core.EntryPointWalk.Row;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.expressions.Expressions;

/** The rows of {@link PublicEntryPointsTest} for {@code deleteRows()} and {@code forget()}. */
final class DeleteEntryPointRows {
  private DeleteEntryPointRows() {}

  static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    rows.add(onTable("delete rows nothing selected", InvalidArgumentException.class, t -> t.deleteRows().execute()));
    rows.add(onTable("forget nothing selected", InvalidArgumentException.class, t -> t.deleteRows().forget()));
    rows.add(onTable("delete rows unknown key column", InvalidArgumentException.class,
        t -> t.deleteRows().keys("nope", List.of(1L))));
    rows.add(onTable("delete rows struct key column", InvalidArgumentException.class,
        t -> t.deleteRows().keys("s", List.of(1L))));
    rows.add(onTable("delete rows no keys", InvalidArgumentException.class, t -> t.deleteRows().keys("id", List.of())));
    rows.add(onTable("delete rows NaN key", InvalidArgumentException.class,
        t -> t.deleteRows().keys("score", List.of(Double.NaN))));
    rows.add(onTable("delete rows wrong key type", InvalidArgumentException.class,
        t -> t.deleteRows().keys("id", List.of("abc")).execute()));
    rows.add(onTable("forget wrong key type", InvalidArgumentException.class,
        t -> t.deleteRows().keys("id", List.of("abc")).forget()));
    rows.add(onTable("delete rows filter unknown column", InvalidArgumentException.class,
        t -> t.deleteRows().where(Expressions.equal("nope", 1)).execute()));
    rows.add(onTable("delete rows dry run filter unknown column", InvalidArgumentException.class,
        t -> t.deleteRows().where(Expressions.equal("nope", 1)).dryRun()));
    rows.add(onTable("delete rows filter wrong literal", InvalidArgumentException.class,
        t -> t.deleteRows().where(Expressions.equal("id", "abc")).execute()));
    rows.add(onTable("delete rows filter and keys", InvalidArgumentException.class,
        t -> t.deleteRows().where(Expressions.alwaysTrue()).keys("id", List.of(1L))));
    rows.add(onTable("delete rows keys then filter", InvalidArgumentException.class,
        t -> t.deleteRows().keys("id", List.of(1L)).where(Expressions.alwaysTrue())));
    rows.add(onTable("delete rows twice", InvalidStateException.class, t -> {
      var once = t.deleteRows().where(Expressions.equal("id", 12345L));
      once.dryRun();
      once.execute();
    }));
    rows.add(onNull("delete rows where null", t -> t.deleteRows().where(null)));
    rows.add(onNull("delete rows keys null column", t -> t.deleteRows().keys(null, List.of(1L))));
    rows.add(onNull("delete rows keys null keys", t -> t.deleteRows().keys("id", null)));
    rows.add(onNull("delete rows null key", t -> t.deleteRows().keys("id", Arrays.asList(1L, null))));
    return rows;
  }
}
