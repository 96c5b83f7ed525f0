package dev.featurestore.core.base;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal: a context class loader under which a new Hadoop {@code Configuration} does not load
 * Hadoop's default files ({@code core-default.xml}, and {@code mapred-default.xml} once
 * parquet-hadoop has loaded {@code JobConf}). Iceberg's Parquet writer creates a new Configuration
 * for every data file it opens, and a new Configuration parses those files from the Hadoop jars
 * when it is first used: 5 to 15 ms of CPU per data file here, against about 0.3 ms without them,
 * and most of the writing of a 100-row append. The writers need none of their values: Parquet's
 * and Iceberg's settings come from the table's properties, and the Hadoop codecs Parquet may use
 * (gzip) read the same defaults from code when a key is absent. Every class and every other
 * resource comes from the parent, so a {@code core-site.xml} on the class path still applies
 * (where the parent finds each {@code *-site.xml}, usually nowhere, is remembered: a resource
 * that is missing costs a search of every jar each time).
 *
 * <pre>{@code
 * ClassLoader previous = HadoopDefaultsHidden.enter(loader);
 * try { ... open Parquet writers ... } finally { HadoopDefaultsHidden.exit(previous); }
 * }</pre>
 */
public final class HadoopDefaultsHidden extends ClassLoader {
  /** Hadoop's own default files (mapred's is added as a default resource once parquet-hadoop loads JobConf). */
  private static final Set<String> DEFAULTS = Set.of("core-default.xml", "mapred-default.xml", "yarn-default.xml",
      "hdfs-default.xml", "hdfs-rbf-default.xml");

  static {
    registerAsParallelCapable();
  }

  private static final HadoopDefaultsHidden OWN = new HadoopDefaultsHidden(HadoopDefaultsHidden.class.getClassLoader());

  private HadoopDefaultsHidden(ClassLoader parent) {
    super(parent);
  }

  /**
   * The hiding loaders in front of other context class loaders (an application server's, a
   * notebook's), one per parent. Both sides are weak: a hiding loader references its parent, so a
   * strong value would keep its own key alive and leak the parent (and every class it loaded)
   * once the application is gone. A hiding loader nothing uses any more may be collected and is
   * then made again.
   */
  private static final Map<ClassLoader, WeakReference<HadoopDefaultsHidden>> BY_PARENT = new WeakHashMap<>();

  /**
   * A loader hiding Hadoop's default files in front of the calling thread's context class loader:
   * one shared instance for the library's own class loader (the usual case) and one per other
   * parent while it is in use, so class lookups Hadoop caches per loader stay cached and a data
   * file does not cost a new class loader.
   */
  public static ClassLoader forCurrentThread() {
    ClassLoader current = Thread.currentThread().getContextClassLoader();
    if (current instanceof HadoopDefaultsHidden) {
      return current;
    }
    if (current == null || current == OWN.getParent()) {
      return OWN;
    }
    synchronized (BY_PARENT) {
      WeakReference<HadoopDefaultsHidden> cached = BY_PARENT.get(current);
      HadoopDefaultsHidden loader = cached == null ? null : cached.get();
      if (loader == null) {
        loader = new HadoopDefaultsHidden(current);
        BY_PARENT.put(current, new WeakReference<>(loader));
      }
      return loader;
    }
  }

  /** Makes {@code loader} the calling thread's context class loader; returns the one to restore. */
  public static ClassLoader enter(ClassLoader loader) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    return previous;
  }

  /** Restores the context class loader {@link #enter} returned. */
  public static void exit(ClassLoader previous) {
    Thread.currentThread().setContextClassLoader(previous);
  }

  /**
   * Where the parent finds each {@code *-site.xml} (usually nowhere): asked again for every new
   * Configuration, and a missing resource is a search of every jar on the class path.
   */
  private final Map<String, Optional<URL>> sites = new ConcurrentHashMap<>();

  @Override
  public URL getResource(String name) {
    if (DEFAULTS.contains(name)) {
      return null;
    }
    if (name.endsWith("-site.xml")) {
      return sites.computeIfAbsent(name, n -> Optional.ofNullable(super.getResource(n))).orElse(null);
    }
    return super.getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    return DEFAULTS.contains(name) ? Collections.emptyEnumeration() : super.getResources(name);
  }

  @Override
  public InputStream getResourceAsStream(String name) {
    return DEFAULTS.contains(name) ? null : super.getResourceAsStream(name);
  }
}
