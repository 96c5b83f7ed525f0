package dev.featurestore.core.online;

import dev.featurestore.OnlineView;
import dev.featurestore.OnlineViewDefinition;
import dev.featurestore.core.base.TableHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Opens online views: the latest feature values per key of a table in a SQLite file
 * ({@code <directory>/<view name>.sqlite}). Internal entry point for the store.
 */
public final class OnlineViews {
  private OnlineViews() {}

  /** The file of view {@code name} in {@code directory}. */
  public static Path file(Path directory, String name) {
    return directory.resolve(name + ".sqlite");
  }

  /**
   * Opens (or creates) the view. The view's columns are found by field id: the ids stored in its
   * file when the definition names the same columns as when it was stored (so renames since then
   * are followed), else resolved by name in the table's current schema. Another table or layout
   * than stored drops the stored entries: the view is empty until materialized.
   */
  public static OnlineView open(TableHandle handle, OnlineViewDefinition definition, Path directory, Runnable onClose) {
    return open(handle, definition, directory, onClose, Hooks.NONE);
  }

  static OnlineView open(TableHandle handle, OnlineViewDefinition definition, Path directory, Runnable onClose,
      Hooks hooks) {
    org.apache.iceberg.Table table = handle.table();
    String names = handle.id() + "|" + definition.key() + "|" + definition.eventTime() + "|"
        + String.join(",", definition.features());
    String tableUuid = table.uuid() == null ? "?" : table.uuid().toString();
    ViewDatabase db = ViewDatabase.open(file(directory, definition.name()), definition.readConnections());
    try {
      Optional<ViewDatabase.Meta> meta = db.meta();
      ViewLayout layout = null;
      if (meta.isPresent() && meta.get().names().equals(names) && meta.get().layout().startsWith(tableUuid + "|")) {
        layout = ViewLayout.parse(meta.get().layout().substring(tableUuid.length() + 1));
      }
      if (layout == null) {
        layout = ViewLayout.resolve(definition, table.schema());
      }
      String stored = tableUuid + "|" + layout.fingerprint();
      if (meta.isEmpty() || !meta.get().layout().equals(stored)) {
        db.reset(layout, names, stored);
      } else if (!meta.get().names().equals(names)) {
        db.names(names); // the same columns, named as they are now
      }
      return new DefaultOnlineView(handle, definition, db, layout, hooks, onClose);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }
}
