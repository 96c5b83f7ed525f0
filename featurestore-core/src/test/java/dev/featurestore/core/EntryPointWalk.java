package dev.featurestore.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.FeatureTable;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.TableId;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;

/**
 * The row kinds of the entry-point walks ({@code PublicEntryPointsTest} here, one per module that
 * has public entry points): each row is one call with a bad argument and what it must do.
 *
 * <ul>
 *   <li>{@link #bad}: fails with a {@link FeatureStoreException} subtype (never the bare base
 *       class) whose message starts with {@code Cannot } and is one line;
 *   <li>{@link #onTable}: the same, and the table is as it was afterwards (current snapshot,
 *       schema, spec, properties and refs; read again and through a fresh handle);
 *   <li>{@link #onStore}: the same, and the store holds the same tables afterwards;
 *   <li>{@link #nul}: a null argument: {@link InvalidArgumentException} naming the parameter,
 *       {@code "Cannot <verb> <object>: <name> is null: null"}, never a bare {@code
 *       NullPointerException};
 *   <li>{@link #gap}: a known untyped error in code another change owns: skipped, with the
 *       reason, while the error is raw; checked as {@link #bad} once it is typed.
 * </ul>
 */
public final class EntryPointWalk {
  private EntryPointWalk() {}

  /** One call and its check. */
  public record Row(String name, Executable check) {}

  public static Stream<DynamicTest> tests(List<Row> rows) {
    return rows.stream().map(r -> DynamicTest.dynamicTest(r.name(), r.check()));
  }

  public static Row bad(String name, Executable call) {
    return bad(name, FeatureStoreException.class, call);
  }

  public static Row bad(String name, Class<? extends FeatureStoreException> type, Executable call) {
    return new Row(name, () -> assertTyped(name, type, call));
  }

  public static Row onStore(String name, Class<? extends FeatureStoreException> type, FeatureStore store, Executable call) {
    return new Row(name, () -> {
      List<TableId> before = store.listTables();
      assertTyped(name, type, call);
      assertThat(store.listTables()).as("%s left the store's tables as they were", name).isEqualTo(before);
    });
  }

  public static Row onTable(String name, Class<? extends FeatureStoreException> type, FeatureStore store, TableId table,
      Consumer<FeatureTable> call) {
    return new Row(name, () -> {
      FeatureTable t = store.table(table);
      TableState before = TableState.of(t);
      assertTyped(name, type, () -> call.accept(t));
      t.refresh();
      assertThat(TableState.of(t)).as("%s left the table as it was", name).isEqualTo(before);
      assertThat(TableState.of(store.table(table))).as("%s left the table as it was, read again", name).isEqualTo(before);
    });
  }

  public static Row nul(String name, Executable call) {
    return new Row(name, () -> {
      assertTyped(name, InvalidArgumentException.class, call);
      assertThat(thrown(name, call).getMessage()).as(name).matches("Cannot [^:]+: [\\w ]+ is null: null");
    });
  }

  public static Row gap(String name, String owner, Executable call) {
    return new Row(name, () -> {
      Throwable thrown = thrown(name, call);
      Assumptions.assumeTrue(thrown instanceof FeatureStoreException,
          () -> "known gap, owned by " + owner + ": " + thrown.getClass().getName() + ": " + thrown.getMessage());
      assertTyped(name, FeatureStoreException.class, () -> {
        throw thrown;
      });
    });
  }

  /** A one-byte file in {@code dir}: an existing path for calls that refuse one. */
  public static java.nio.file.Path existingFile(java.nio.file.Path dir) {
    try {
      return java.nio.file.Files.write(java.nio.file.Files.createTempFile(dir, "exists", ".parquet"), new byte[] {1});
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static Throwable thrown(String name, Executable call) {
    try {
      call.execute();
    } catch (Throwable t) {
      return t;
    }
    return fail(name + ": expected a failure, the call returned");
  }

  public static void assertTyped(String name, Class<? extends FeatureStoreException> type, Executable call) {
    Throwable t = thrown(name, call);
    if (!(t instanceof FeatureStoreException) || t.getClass() == FeatureStoreException.class) {
      throw new AssertionError(name + ": expected a FeatureStoreException subtype, got " + t, t);
    }
    assertThat(t).as(name).isInstanceOf(type);
    assertThat(t.getMessage()).as(name).startsWith("Cannot ");
    assertThat(t.getMessage().chars().noneMatch(Character::isISOControl)).as("%s: one line: %s", name, t.getMessage()).isTrue();
  }

  /** What a failed call must not change. */
  record TableState(Long snapshot, int schemaId, int specId, Map<String, String> properties, Map<String, Long> refs) {
    static TableState of(FeatureTable t) {
      Long current = t.snapshots().current().map(s -> s.snapshotId()).orElse(null);
      return new TableState(current, t.schema().schemaId(), t.spec().specId(), Map.copyOf(t.properties()),
          Map.copyOf(t.snapshots().refs()));
    }
  }
}
