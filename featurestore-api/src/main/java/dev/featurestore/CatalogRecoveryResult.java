package dev.featurestore;

import java.util.List;

/**
 * What {@link FeatureStore#recoverCatalog()} did.
 *
 * @param registered tables re-registered from their latest metadata file, sorted
 * @param alreadyRegistered tables found in the warehouse that the catalog already knew, sorted
 * @param metadataLocations the metadata file each registered table was registered with, in the
 *     order of {@code registered}
 * @param unreadableMetadata metadata files skipped because they are not table metadata (left at 0
 *     bytes or half written by a process killed while writing them), sorted; a table whose newest
 *     file is one of these is registered with its newest readable file, a table with none is not
 *     registered (create it again: the create starts over)
 */
public record CatalogRecoveryResult(List<TableId> registered, List<TableId> alreadyRegistered, List<String> metadataLocations,
    List<String> unreadableMetadata) {
  public CatalogRecoveryResult {
    registered = List.copyOf(registered);
    alreadyRegistered = List.copyOf(alreadyRegistered);
    metadataLocations = List.copyOf(metadataLocations);
    unreadableMetadata = List.copyOf(unreadableMetadata);
  }

  /** A result that skipped no file. */
  public CatalogRecoveryResult(List<TableId> registered, List<TableId> alreadyRegistered, List<String> metadataLocations) {
    this(registered, alreadyRegistered, metadataLocations, List.of());
  }
}
