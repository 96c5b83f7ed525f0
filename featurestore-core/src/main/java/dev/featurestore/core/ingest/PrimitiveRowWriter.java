package dev.featurestore.core.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.parquet.InternalWriter;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetValueWriters;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Iceberg's Parquet value writer for {@link PrimitiveRow}s: the slot columns are written straight
 * from their {@code long} slots to Parquet's column writers (no boxed value, no per-value virtual
 * call through Iceberg's struct, option and primitive writers); every other column through the
 * writers Iceberg's {@link InternalWriter} builds for it. The file is the one Iceberg's internal
 * writer writes for the same rows, byte for byte, with the same field metrics (null, NaN and value
 * counts, float and double bounds), which {@code PrimitiveRowWriterTest} checks.
 */
final class PrimitiveRowWriter implements ParquetValueWriter<StructLike> {
  private final SlotColumn[] slots;
  private final ParquetValueWriter<StructLike> objects;
  private final ObjectView view;

  private PrimitiveRowWriter(SlotColumn[] slots, ParquetValueWriter<StructLike> objects, ObjectView view) {
    this.slots = slots;
    this.objects = objects;
    this.view = view;
  }

  /** The writer of rows of {@code schema} into a file of Parquet schema {@code type}. */
  static ParquetValueWriter<StructLike> create(Schema schema, MessageType type) {
    List<Types.NestedField> columns = schema.columns();
    List<SlotColumn> slotColumns = new ArrayList<>();
    List<Types.NestedField> objectFields = new ArrayList<>();
    List<Type> objectTypes = new ArrayList<>();
    List<Integer> objectPositions = new ArrayList<>();
    for (Type field : type.getFields()) {
      int id = field.getId().intValue();
      int position = position(columns, id);
      byte kind = PrimitiveRow.kind(columns.get(position).type());
      if (kind != PrimitiveRow.OBJECT && field.isPrimitive()) {
        String[] path = {field.getName()};
        slotColumns.add(new SlotColumn(type.getColumnDescription(path), position, kind,
            field.isRepetition(Type.Repetition.OPTIONAL), type.getMaxDefinitionLevel(path)));
      } else {
        objectFields.add(columns.get(position));
        objectTypes.add(field);
        objectPositions.add(position);
      }
    }
    ParquetValueWriter<StructLike> objects = null;
    ObjectView view = null;
    if (!objectFields.isEmpty()) {
      // top-level columns keep their paths and levels in a message of their own, so the writers
      // Iceberg builds for it find their column writers in the file's column store
      objects = InternalWriter.create(Types.StructType.of(objectFields), new MessageType(type.getName(), objectTypes));
      view = new ObjectView(objectPositions.stream().mapToInt(Integer::intValue).toArray());
    }
    return new PrimitiveRowWriter(slotColumns.toArray(new SlotColumn[0]), objects, view);
  }

  private static int position(List<Types.NestedField> columns, int id) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == id) {
        return i;
      }
    }
    throw new IllegalArgumentException("Cannot write Parquet column: no field with id: " + id);
  }

  @Override
  public void write(int repetitionLevel, StructLike value) {
    PrimitiveRow row = (PrimitiveRow) value;
    for (SlotColumn column : slots) {
      column.write(repetitionLevel, row);
    }
    if (objects != null) {
      view.row = row;
      objects.write(repetitionLevel, view);
    }
  }

  @Override
  public List<TripleWriter<?>> columns() {
    List<TripleWriter<?>> columns = new ArrayList<>();
    for (SlotColumn column : slots) {
      columns.addAll(column.columns());
    }
    if (objects != null) {
      columns.addAll(objects.columns());
    }
    return columns;
  }

  @Override
  public void setColumnStore(ColumnWriteStore columnStore) {
    for (SlotColumn column : slots) {
      column.setColumnStore(columnStore);
    }
    if (objects != null) {
      objects.setColumnStore(columnStore);
    }
  }

  @Override
  public Stream<FieldMetrics<?>> metrics() {
    Stream<FieldMetrics<?>> slotMetrics = Stream.of(slots).flatMap(SlotColumn::metrics);
    return objects == null ? slotMetrics : Stream.concat(slotMetrics, objects.metrics());
  }

  /**
   * One slot column. Field metrics as Iceberg's writers keep them: doubles and floats count NaNs
   * and track bounds ({@code DoubleWriter}, {@code FloatWriter}), an optional column adds its nulls
   * ({@code OptionWriter}), other types have none (their statistics come from the footer).
   */
  private static final class SlotColumn extends ParquetValueWriters.PrimitiveWriter<Object> {
    private final int position;
    private final byte kind;
    private final boolean optional;
    private final int nullLevel;
    private final int id;
    private final DoubleFieldMetrics.Builder doubleMetrics;
    private final FloatFieldMetrics.Builder floatMetrics;
    private long nullCount;

    SlotColumn(ColumnDescriptor desc, int position, byte kind, boolean optional, int definitionLevel) {
      super(desc);
      this.position = position;
      this.kind = kind;
      this.optional = optional;
      this.nullLevel = definitionLevel - 1;
      this.id = desc.getPrimitiveType().getId().intValue();
      this.doubleMetrics = kind == PrimitiveRow.DOUBLE ? new DoubleFieldMetrics.Builder(id) : null;
      this.floatMetrics = kind == PrimitiveRow.FLOAT ? new FloatFieldMetrics.Builder(id) : null;
    }

    void write(int rl, PrimitiveRow row) {
      if (row.isNull(position)) {
        if (!optional) {
          // what Iceberg's writers do with a null in a required column
          throw new NullPointerException("Cannot write null to required column: " + id);
        }
        nullCount++;
        column.writeNull(rl, nullLevel);
        return;
      }
      long slot = row.slot(position);
      switch (kind) {
        case PrimitiveRow.LONG:
          column.writeLong(rl, slot);
          break;
        case PrimitiveRow.INT:
          column.writeInteger(rl, (int) slot);
          break;
        case PrimitiveRow.DOUBLE:
          double d = Double.longBitsToDouble(slot);
          column.writeDouble(rl, d);
          doubleMetrics.addValue(d);
          break;
        case PrimitiveRow.FLOAT:
          float f = Float.intBitsToFloat((int) slot);
          column.writeFloat(rl, f);
          floatMetrics.addValue(f);
          break;
        default:
          column.writeBoolean(rl, slot != 0);
      }
    }

    @Override
    public void write(int repetitionLevel, Object value) {
      throw new UnsupportedOperationException("Cannot write a boxed value: slot columns write from rows");
    }

    @Override
    public Stream<FieldMetrics<?>> metrics() {
      FieldMetrics<?> metrics = doubleMetrics != null ? doubleMetrics.build()
          : floatMetrics != null ? floatMetrics.build() : null;
      if (metrics == null) {
        return Stream.empty();
      }
      if (!optional) {
        return Stream.of(metrics);
      }
      // as Iceberg's OptionWriter adds its nulls to its primitive writer's metrics
      long nulls = metrics.nullValueCount() < 0 ? metrics.nullValueCount() : metrics.nullValueCount() + nullCount;
      return Stream.of(new FieldMetrics<>(metrics.id(), metrics.valueCount() + nullCount, nulls,
          metrics.nanValueCount(), metrics.lowerBound(), metrics.upperBound(), metrics.originalType(),
          metrics.avgValueSizeInBytes()));
    }
  }

  /** The object columns of a row, as the struct Iceberg's writers for them read. */
  private static final class ObjectView implements StructLike {
    private final int[] positions;
    private PrimitiveRow row;

    ObjectView(int[] positions) {
      this.positions = positions;
    }

    @Override
    public int size() {
      return positions.length;
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
      return javaClass.cast(row.object(positions[pos]));
    }

    @Override
    public <T> void set(int pos, T value) {
      throw new UnsupportedOperationException("Cannot set a value: read-only view");
    }
  }
}
