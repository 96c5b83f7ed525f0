package dev.featurestore.core.schema;

import dev.featurestore.SchemaEvolution;
import dev.featurestore.core.TableHandle;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;

/** STUB: to be implemented. */
public final class SchemaChange implements SchemaEvolution {
  private final TableHandle handle;

  public SchemaChange(TableHandle handle) {
    this.handle = handle;
  }

  @Override public SchemaEvolution addColumn(String name, Type type, String doc) { throw new UnsupportedOperationException(); }
  @Override public SchemaEvolution renameColumn(String name, String newName) { throw new UnsupportedOperationException(); }
  @Override public SchemaEvolution widenColumn(String name, Type.PrimitiveType newType) { throw new UnsupportedOperationException(); }
  @Override public SchemaEvolution makeOptional(String name) { throw new UnsupportedOperationException(); }
  @Override public SchemaEvolution updateDoc(String name, String doc) { throw new UnsupportedOperationException(); }
  @Override public SchemaEvolution dropColumn(String name) { throw new UnsupportedOperationException(); }
  @Override public Schema apply() { throw new UnsupportedOperationException(); }
  @Override public Schema commit() { throw new UnsupportedOperationException(handle.id().toString()); }
}
