package dev.featurestore.core;

import dev.featurestore.FeatureStoreConfig;
import dev.featurestore.ObjectStorage;
import dev.featurestore.Redaction;
import dev.featurestore.StorageProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a configuration does that is allowed but risky on the wire: a bucket or a credentialed REST
 * catalog reached over plain {@code http://}, a B2 bucket whose endpoint does not look like B2.
 * The store logs each once when it opens; the doctor reports each as a WARN check. One list, so
 * both say the same.
 */
final class TransportWarnings {
  /** One warning: the doctor check's name, what was found, and the setting to change. */
  record Warning(String check, String detail, String fix) {
    String logLine() {
      return detail + ": " + fix;
    }
  }

  private TransportWarnings() {}

  static List<Warning> of(FeatureStoreConfig config) {
    List<Warning> warnings = new ArrayList<>();
    config.objectStorage().ifPresent(s -> bucket("object storage", s, warnings));
    config.coldStorage().ifPresent(s -> bucket("cold storage", s, warnings));
    if (config.catalogKind() == FeatureStoreConfig.CatalogKind.REST) {
      String uri = config.catalogUri().orElse("");
      boolean credentialed = config.catalogProperties().keySet().stream().anyMatch(Redaction::isSecretKey);
      if (isPlainHttp(uri) && credentialed) {
        warnings.add(new Warning("catalog https",
            "REST catalog is plain http and its properties hold a credential, sent unencrypted: " + Redaction.uri(uri),
            "use an https:// URI in restCatalog(...)"));
      }
    }
    return warnings;
  }

  private static void bucket(String what, ObjectStorage s, List<Warning> warnings) {
    Optional<String> endpoint = s.endpoint();
    if (endpoint.isEmpty()) {
      return;
    }
    String setting = s.provider() == StorageProvider.B2
        ? ObjectStorage.ENV_ENDPOINT + " (or ObjectStorage.Builder.endpoint(...))"
        : "ObjectStorage.Builder.endpoint(...)";
    if (isPlainHttp(endpoint.get())) {
      warnings.add(new Warning(what.equals("object storage") ? "endpoint https" : "cold endpoint https",
          capitalized(what) + " endpoint is plain http: requests signed with the bucket's credentials and all data"
              + " travel unencrypted: " + endpoint.get(),
          "set " + setting + " to an https:// URI; plain http only for a local stand-in"));
    }
    if (s.provider() == StorageProvider.B2 && ObjectStorage.b2Region(endpoint.get()).isEmpty()) {
      warnings.add(new Warning(what.equals("object storage") ? "endpoint is B2" : "cold endpoint is B2",
          capitalized(what) + " is B2 but its endpoint does not look like https://s3.<region>.backblazeb2.com, used as"
              + " given with region " + s.region() + ": " + endpoint.get(),
          "fine for a proxy, a custom domain or a local stand-in; else set " + setting + " to the endpoint on the"
              + " bucket's page"));
    }
  }

  private static boolean isPlainHttp(String uri) {
    return uri.strip().toLowerCase(Locale.ROOT).startsWith("http://");
  }

  private static String capitalized(String s) {
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
