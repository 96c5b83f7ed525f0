package dev.featurestore.core.catalog;

import java.util.HashMap;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;

/** Creating a namespace when another process may be creating it at the same moment. */
public final class Namespaces {
  private Namespaces() {}

  /**
   * Creates {@code namespace} in {@code catalog} unless it exists. Creating it concurrently is not
   * an error: the JDBC catalog checks then inserts, so the loser of a race gets a primary-key
   * violation on {@code iceberg_namespace_properties} (a raw SQL exception, not
   * "already exists"); whatever the failure, if the namespace exists afterwards the winner's is used.
   */
  public static void ensure(Catalog catalog, Namespace namespace) {
    if (!(catalog instanceof SupportsNamespaces namespaces) || namespaces.namespaceExists(namespace)) {
      return;
    }
    try {
      // a mutable map: Iceberg's REST client probes it with containsKey(null), which
      // Map.of() answers with a NullPointerException
      namespaces.createNamespace(namespace, new HashMap<>());
    } catch (RuntimeException e) {
      if (!namespaces.namespaceExists(namespace)) {
        throw e;
      }
    }
  }
}
