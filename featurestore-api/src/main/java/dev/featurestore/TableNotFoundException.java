package dev.featurestore;

/** The table does not exist in the store's catalog. */
public class TableNotFoundException extends NotFoundException {
  private final TableId tableId;

  public TableNotFoundException(TableId tableId) {
    super("Cannot load table: table does not exist: " + tableId);
    this.tableId = tableId;
  }

  public TableNotFoundException(String message, TableId tableId) {
    super(message);
    this.tableId = tableId;
  }

  /** The table that was asked for. */
  public TableId tableId() {
    return tableId;
  }
}
