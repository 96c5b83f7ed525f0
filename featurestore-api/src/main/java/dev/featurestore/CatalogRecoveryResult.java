package dev.featurestore;

import java.util.List;

/**
 * What {@link FeatureStore#recoverCatalog()} did.
 *
 * @param registered tables re-registered from their latest metadata file, sorted
 * @param alreadyRegistered tables found in the warehouse that the catalog already knew, sorted
 * @param metadataLocations the metadata file each registered table was registered with, in the
 *     order of {@code registered}
 */
public record CatalogRecoveryResult(List<TableId> registered, List<TableId> alreadyRegistered, List<String> metadataLocations) {
  public CatalogRecoveryResult {
    registered = List.copyOf(registered);
    alreadyRegistered = List.copyOf(alreadyRegistered);
    metadataLocations = List.copyOf(metadataLocations);
  }
}
