package dev.featurestore;

/** A table with the requested identifier already exists. */
public class TableAlreadyExistsException extends AlreadyExistsException {
  private final TableId tableId;

  public TableAlreadyExistsException(TableId tableId) {
    super("Cannot create table: table already exists: " + tableId);
    this.tableId = tableId;
  }

  /** The table that already exists. */
  public TableId tableId() {
    return tableId;
  }
}
