package dev.featurestore.core.schema;

import static java.util.Objects.requireNonNull;

import dev.featurestore.ColumnNames;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.InvalidArgumentException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.SchemaEvolution;
import dev.featurestore.ValidationException;
import dev.featurestore.core.base.TableHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortField;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A pending schema change of one table, on top of Iceberg's {@link UpdateSchema}.
 *
 * <pre>{@code
 * Schema updated = new SchemaChange(handle)
 *     .addColumn("feature_c", Types.DoubleType.get(), "7-day mean")
 *     .renameColumn("feature_a", "feature_a_7d")
 *     .commit();
 * }</pre>
 *
 * <p>Each step is checked when it is added, against the schema the steps so far produce, so a bad
 * step throws {@link ValidationException} at once and leaves the pending change as it was. Steps
 * refer to columns by field id once checked, so the change is replayed correctly at commit even
 * if another writer committed data (or renamed an unrelated column) in between.
 *
 * <p>Thread safety: not thread-safe; build and commit a change from one thread. Commits of
 * several changes to the same table are serialized by the table's commit lock.
 */
public final class SchemaChange implements SchemaEvolution {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaChange.class);

  private final TableHandle handle;
  /** The schema the steps were checked against (the table's schema when the change started). */
  private final Schema base;
  private final List<Step> steps = new ArrayList<>();
  /** Field id in the preview to the full name a column was added under in this change. */
  private final Map<Integer, String> addedNames = new HashMap<>();
  private Schema preview;
  private boolean committed = false;

  public SchemaChange(TableHandle handle) {
    this.handle = requireNonNull(handle, "handle is null");
    this.base = handle.translating("load schema of table " + handle.id(), () -> handle.refreshed().schema());
    this.preview = base;
  }

  @Override
  public SchemaEvolution addColumn(String name, Type type, String doc) {
    InvalidArgumentException.requireNonNull(name, "add column", "name");
    InvalidArgumentException.requireNonNull(type, "add column", "type");
    checkOpen();
    Placement at = placement(name, "add column");
    return addStep("add column " + name, (update, names) -> {
      if (at.parent() == null) {
        update.addColumn(at.leaf(), type, doc);
      } else {
        update.addColumn(at.parent().name(names), at.leaf(), type, doc);
      }
    }, name);
  }

  @Override
  public SchemaEvolution addRequiredColumn(String name, Type type, Object defaultValue, String doc) {
    String action = "add required column";
    InvalidArgumentException.requireNonNull(name, action, "name");
    InvalidArgumentException.requireNonNull(type, action, "type");
    InvalidArgumentException.requireNonNull(defaultValue, action, "defaultValue");
    checkOpen();
    int formatVersion = formatVersion();
    if (formatVersion < 3) {
      throw new ValidationException("Cannot " + action + " " + name + ": column defaults need format version 3: "
          + formatVersion);
    }
    InvalidArgumentException.check(type.isPrimitiveType(), "Cannot %s %s: a default needs a primitive type: %s",
        action, name, type);
    Literal<?> literal = ColumnDefaults.literal(type.asPrimitiveType(), defaultValue, action + " " + name);
    Placement at = placement(name, action);
    return addStep(action + " " + name, (update, names) -> {
      if (at.parent() == null) {
        update.addRequiredColumn(at.leaf(), type, doc, literal);
      } else {
        update.addRequiredColumn(at.parent().name(names), at.leaf(), type, doc, literal);
      }
    }, name);
  }

  private int formatVersion() {
    Table table = handle.table();
    if (table instanceof org.apache.iceberg.HasTableOperations ops) {
      return ops.operations().current().formatVersion();
    }
    return Integer.parseInt(table.properties().getOrDefault("format-version", "2"));
  }

  /** Where a new column goes: its parent struct (null for top level) and leaf name, checked. */
  private record Placement(Ref parent, String leaf) {}

  private Placement placement(String name, String action) {
    if (preview.findField(name) != null) {
      throw new ValidationException("Cannot " + action + ": column already exists: " + name);
    }
    int dot = name.lastIndexOf('.');
    Ref parent = null;
    String leaf = name;
    if (dot >= 0) {
      String parentName = name.substring(0, dot);
      leaf = name.substring(dot + 1);
      Types.NestedField parentField = preview.findField(parentName);
      if (parentField == null) {
        throw new ValidationException("Cannot " + action + " " + name + ": missing parent column: " + parentName);
      }
      if (!parentField.type().isStructType()) {
        throw new ValidationException("Cannot " + action + " " + name + ": parent is not a struct: " + parentName);
      }
      parent = ref(parentField.fieldId());
    }
    if (leaf.isEmpty()) {
      throw new InvalidArgumentException("Cannot " + action + ": empty name: " + name);
    }
    Types.StructType siblings = parent == null ? preview.asStruct()
        : preview.findField(parent.fieldId()).type().asStructType();
    ColumnNames.checkNewName(siblings, parent == null, leaf, -1, action + " " + name);
    return new Placement(parent, leaf);
  }

  @Override
  public SchemaEvolution renameColumn(String name, String newName) {
    InvalidArgumentException.requireNonNull(name, "rename column", "name");
    InvalidArgumentException.requireNonNull(newName, "rename column", "newName");
    checkOpen();
    Types.NestedField field = preview.findField(name);
    if (field == null) {
      throw new ValidationException("Cannot rename missing column: " + name);
    }
    if (newName.isEmpty() || newName.contains(".")) {
      throw new InvalidArgumentException(
          "Cannot rename column " + name + ": new name must be a non-empty leaf name without dots: " + newName);
    }
    int dot = name.lastIndexOf('.');
    String fullNewName = dot < 0 ? newName : name.substring(0, dot + 1) + newName;
    Types.NestedField existing = preview.findField(fullNewName);
    if (existing != null && existing.fieldId() != field.fieldId()) {
      throw new ValidationException("Cannot rename column " + name + ": column already exists: " + newName);
    }
    Type parentType = dot < 0 ? preview.asStruct() : preview.findType(name.substring(0, dot));
    if (parentType != null && parentType.isStructType()) {
      ColumnNames.checkNewName(parentType.asStructType(), dot < 0, newName, field.fieldId(), "rename column " + name);
    }
    Ref target = ref(field.fieldId());
    return addStep("rename column " + name, (update, names) -> update.renameColumn(target.name(names), newName), null);
  }

  @Override
  public SchemaEvolution widenColumn(String name, Type.PrimitiveType newType) {
    InvalidArgumentException.requireNonNull(name, "widen column", "name");
    InvalidArgumentException.requireNonNull(newType, "widen column", "newType");
    checkOpen();
    Types.NestedField field = preview.findField(name);
    if (field == null) {
      throw new ValidationException("Cannot widen missing column: " + name);
    }
    if (!SchemaEvolution.isValidTypePromotion(field.type(), newType)) {
      throw new ValidationException(
          "Cannot widen column " + name + ": cannot promote " + field.type() + " to " + newType);
    }
    Ref target = ref(field.fieldId());
    return addStep("widen column " + name, (update, names) -> update.updateColumn(target.name(names), newType), null);
  }

  @Override
  public SchemaEvolution makeOptional(String name) {
    InvalidArgumentException.requireNonNull(name, "make column optional", "name");
    checkOpen();
    Types.NestedField field = preview.findField(name);
    if (field == null) {
      throw new ValidationException("Cannot make missing column optional: " + name);
    }
    if (preview.identifierFieldIds().contains(field.fieldId())) {
      throw new ValidationException("Cannot make column optional: column is an identifier field: " + name);
    }
    Ref target = ref(field.fieldId());
    return addStep("make column optional " + name, (update, names) -> update.makeColumnOptional(target.name(names)), null);
  }

  @Override
  public SchemaEvolution updateDoc(String name, String doc) {
    InvalidArgumentException.requireNonNull(name, "update column doc", "name");
    checkOpen();
    Types.NestedField field = preview.findField(name);
    if (field == null) {
      throw new ValidationException("Cannot update doc of missing column: " + name);
    }
    Ref target = ref(field.fieldId());
    return addStep("update doc of column " + name, (update, names) -> update.updateColumnDoc(target.name(names), doc), null);
  }

  @Override
  public SchemaEvolution dropColumn(String name) {
    InvalidArgumentException.requireNonNull(name, "drop column", "name");
    checkOpen();
    Types.NestedField field = preview.findField(name);
    if (field == null) {
      throw new ValidationException("Cannot drop missing column: " + name);
    }
    Table table = handle.table();
    for (PartitionSpec spec : table.specs().values()) {
      for (PartitionField partitionField : spec.fields()) {
        if (isOrContains(field, partitionField.sourceId())) {
          throw new ValidationException(
              "Cannot drop column: column is the source of partition field " + partitionField.name() + ": " + name);
        }
      }
    }
    for (SortField sortField : table.sortOrder().fields()) {
      if (isOrContains(field, sortField.sourceId())) {
        throw new ValidationException("Cannot drop column: column is in the table's sort order: " + name);
      }
    }
    for (int identifierId : preview.identifierFieldIds()) {
      if (isOrContains(field, identifierId)) {
        throw new ValidationException("Cannot drop column: column is an identifier field: " + name);
      }
    }
    Ref target = ref(field.fieldId());
    return addStep("drop column " + name, (update, names) -> update.deleteColumn(target.name(names)), null);
  }

  @Override
  public Schema apply() {
    return preview;
  }

  @Override
  public Schema commit() {
    checkOpen();
    if (steps.isEmpty()) {
      committed = true;
      return handle.translating("load schema of table " + handle.id(), () -> handle.refreshed().schema());
    }
    try {
      Schema result = handle.commitLocked(() -> {
        Table table = handle.table();
        Schema before = table.schema();
        org.apache.iceberg.Transaction transaction = table.newTransaction();
        UpdateSchema update = transaction.updateSchema();
        replay(update, before, steps);
        update.commit();
        moveColumnProperties(transaction, before, transaction.table().schema());
        transaction.commitTransaction();
        Schema after = table.schema();
        handle.record("schema_change", null, java.util.Map.of("changes", steps.size(),
            "schema_id_before", before.schemaId(), "schema_id", after.schemaId(), "columns", after.columns().size()));
        return after;
      });
      committed = true;
      LOG.info("Evolved schema of table {}: {} change(s), schema id {}", handle.id(), steps.size(), result.schemaId());
      return result;
    } catch (CommitStateUnknownException e) {
      committed = true; // never retried blindly: the caller must check the table first
      throw e;
    }
  }

  private SchemaEvolution addStep(String what, StepAction action, String addedName) {
    Step step = new Step(action);
    List<Step> candidate = new ArrayList<>(steps);
    candidate.add(step);
    Schema next;
    try {
      UpdateSchema update = handle.table().updateSchema();
      replay(update, base, candidate);
      next = update.apply();
    } catch (IllegalArgumentException | IllegalStateException | org.apache.iceberg.exceptions.ValidationException e) {
      throw new ValidationException("Cannot " + what + ": " + e.getMessage(), e);
    }
    steps.add(step);
    if (addedName != null) {
      Types.NestedField added = next.findField(addedName);
      if (added != null) {
        addedNames.put(added.fieldId(), addedName);
      }
    }
    preview = next;
    return this;
  }

  /**
   * Replays the steps on a fresh Iceberg update. Columns of the base schema are named by their id
   * in {@code current} (the schema the update starts from), columns added in this change by the
   * name they were added under.
   */
  private void replay(UpdateSchema update, Schema current, List<Step> toApply) {
    Names names = id -> {
      // added columns first: a concurrent writer may have taken their preview ids
      String added = addedNames.get(id);
      if (added != null) {
        return added;
      }
      String name = current.findColumnName(id);
      if (name != null) {
        return name;
      }
      throw new ValidationException(
          "Cannot commit schema change to table " + handle.id() + ": column was dropped concurrently: field id " + id);
    };
    for (Step step : toApply) {
      step.action.apply(update, names);
    }
  }

  /**
   * Per-column write properties Iceberg does not move on rename (it moves only
   * {@code bloom-filter-enabled}): the bloom filter's sizing and the metrics mode.
   */
  private static final List<String> COLUMN_PROPERTY_PREFIXES = List.of(
      dev.featurestore.BloomFilterColumn.NDV_PREFIX, dev.featurestore.BloomFilterColumn.FPP_PREFIX,
      org.apache.iceberg.TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX);

  private static void moveColumnProperties(org.apache.iceberg.Transaction transaction, Schema before, Schema after) {
    Map<String, String> props = transaction.table().properties();
    org.apache.iceberg.UpdateProperties update = null;
    for (Types.NestedField field : org.apache.iceberg.types.TypeUtil.indexById(before.asStruct()).values()) {
      String oldName = before.findColumnName(field.fieldId());
      String newName = after.findColumnName(field.fieldId());
      if (oldName == null || newName == null || oldName.equals(newName)) {
        continue;
      }
      for (String prefix : COLUMN_PROPERTY_PREFIXES) {
        String value = props.get(prefix + oldName);
        if (value != null) {
          update = update == null ? transaction.updateProperties() : update;
          update.remove(prefix + oldName).set(prefix + newName, value);
        }
      }
    }
    // uuid bounds are compared signed by Iceberg 1.12 (apache/iceberg#14216): record none for new uuid columns
    for (Types.NestedField field : org.apache.iceberg.types.TypeUtil.indexById(after.asStruct()).values()) {
      String name = after.findColumnName(field.fieldId());
      String key = org.apache.iceberg.TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + name;
      if (field.type().typeId() == Type.TypeID.UUID && before.findField(field.fieldId()) == null
          && !props.containsKey(key)) {
        update = update == null ? transaction.updateProperties() : update;
        update.set(key, "counts");
      }
    }
    if (update != null) {
      update.commit();
    }
  }

  /** Refers to a column by field id: ids survive renames by other steps or other writers. */
  private Ref ref(int fieldId) {
    return new Ref(fieldId);
  }

  private static boolean isOrContains(Types.NestedField field, int fieldId) {
    if (field.fieldId() == fieldId) {
      return true;
    }
    if (field.type().isNestedType()) {
      for (Types.NestedField child : field.type().asNestedType().fields()) {
        if (isOrContains(child, fieldId)) {
          return true;
        }
      }
    }
    return false;
  }

  private void checkOpen() {
    if (committed) {
      throw new InvalidStateException("Cannot commit schema change: already committed");
    }
  }

  @Override
  public String toString() {
    return "SchemaChange{table=" + handle.id() + ", steps=" + steps.size() + "}";
  }

  private interface Names {
    String nameOf(int fieldId);
  }

  private interface StepAction {
    void apply(UpdateSchema update, Names names);
  }

  private record Step(StepAction action) {}

  private record Ref(int fieldId) {
    String name(Names names) {
      return names.nameOf(fieldId);
    }
  }
}
