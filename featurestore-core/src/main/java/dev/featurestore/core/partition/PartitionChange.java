package dev.featurestore.core.partition;


import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.PartitionEvolution;
import dev.featurestore.PartitionSpecBuilder;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.expressions.Expressions;

/** A pending partition-spec change over Iceberg's {@link UpdatePartitionSpec}; each step checked as it is added. */
final class PartitionChange implements PartitionEvolution {
  private final TableHandle handle;
  private final List<Consumer<UpdatePartitionSpec>> steps = new ArrayList<>();
  private final List<String> described = new ArrayList<>();
  private boolean committed;

  PartitionChange(TableHandle handle) {
    this.handle = handle;
  }

  @Override
  public PartitionEvolution identity(String column) {
    check(column, b -> b.identity(column));
    return step("identity(" + column + ")", u -> u.addField(column));
  }

  @Override
  public PartitionEvolution year(String column) {
    check(column, b -> b.year(column));
    return step("year(" + column + ")", u -> u.addField(column + "_year", Expressions.year(column)));
  }

  @Override
  public PartitionEvolution month(String column) {
    check(column, b -> b.month(column));
    return step("month(" + column + ")", u -> u.addField(column + "_month", Expressions.month(column)));
  }

  @Override
  public PartitionEvolution day(String column) {
    check(column, b -> b.day(column));
    return step("day(" + column + ")", u -> u.addField(column + "_day", Expressions.day(column)));
  }

  @Override
  public PartitionEvolution hour(String column) {
    check(column, b -> b.hour(column));
    return step("hour(" + column + ")", u -> u.addField(column + "_hour", Expressions.hour(column)));
  }

  @Override
  public PartitionEvolution bucket(String column, int buckets) {
    check(column, b -> b.bucket(column, buckets));
    return step("bucket(" + column + ", " + buckets + ")", u -> u.addField(column + "_bucket", Expressions.bucket(column, buckets)));
  }

  @Override
  public PartitionEvolution truncate(String column, int width) {
    check(column, b -> b.truncate(column, width));
    return step("truncate(" + column + ", " + width + ")", u -> u.addField(column + "_trunc", Expressions.truncate(column, width)));
  }

  @Override
  public PartitionEvolution removeField(String name) {
    InvalidArgumentException.requireNonNull(name, "change partition field", "name");
    field(name);
    return step("remove(" + name + ")", u -> u.removeField(name));
  }

  @Override
  public PartitionEvolution renameField(String name, String newName) {
    InvalidArgumentException.requireNonNull(name, "change partition field", "name");
    InvalidArgumentException.requireNonNull(newName, "change partition field", "newName");
    field(name);
    return step("rename(" + name + " -> " + newName + ")", u -> u.renameField(name, newName));
  }

  @Override
  public PartitionSpec apply() {
    checkNotCommitted();
    Table table = handle.translating("refresh table " + handle.id(), handle::refreshed);
    return run(() -> build(table).apply());
  }

  @Override
  public PartitionSpec commit() {
    checkNotCommitted();
    if (steps.isEmpty()) {
      throw new InvalidStateException("Cannot commit partition spec change of table " + handle.id() + ": no change given");
    }
    committed = true;
    return handle.commitLocked(() -> run(() -> {
      Table table = handle.table();
      build(table).commit();
      table.refresh();
      handle.record("partition_spec_change", null, java.util.Map.of("change", List.copyOf(described), "spec_id", table.spec().specId(),
          "spec", table.spec().toString()));
      return table.spec();
    }));
  }

  private PartitionSpec run(java.util.function.Supplier<PartitionSpec> action) {
    try {
      return action.get();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw new ValidationException("Cannot evolve partition spec of table " + handle.id() + " with " + described
          + ": " + e.getMessage(), e);
    }
  }

  private UpdatePartitionSpec build(Table table) {
    UpdatePartitionSpec update = table.updateSpec();
    steps.forEach(step -> step.accept(update));
    return update;
  }

  private PartitionEvolution step(String description, Consumer<UpdatePartitionSpec> step) {
    checkNotCommitted();
    steps.add(step);
    described.add(description);
    return this;
  }

  private void check(String column, Consumer<PartitionSpecBuilder> probe) {
    InvalidArgumentException.requireNonNull(column, "change partition field", "column");
    Schema schema = handle.table().schema();
    probe.accept(PartitionSpecBuilder.of(schema)); // same checks and messages as a new spec
  }

  private PartitionField field(String name) {
    for (PartitionField field : handle.table().spec().fields()) {
      if (field.name().equals(name)) {
        return field;
      }
    }
    throw new InvalidArgumentException("Cannot change partition field: no such field in the current spec: " + name);
  }

  private void checkNotCommitted() {
    if (committed) {
      throw new InvalidStateException("Cannot commit partition spec change of table " + handle.id() + ": already committed");
    }
  }
}
