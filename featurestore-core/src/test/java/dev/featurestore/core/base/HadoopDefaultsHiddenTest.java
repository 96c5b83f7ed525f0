package dev.featurestore.core.base;

import static dev.featurestore.core.testing.Await.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The hiding loader is made once per context class loader while it is in use (not once per data
 * file), and it does not keep an application's class loader alive once the application is gone.
 */
class HadoopDefaultsHiddenTest {
  private static final ClassLoader LIBRARY = HadoopDefaultsHidden.class.getClassLoader();

  @Test
  void oneHidingLoader_perContextClassLoader() {
    ClassLoader app = new URLClassLoader(new URL[0], LIBRARY);
    ClassLoader other = new URLClassLoader(new URL[0], LIBRARY);

    ClassLoader hiding = under(app);

    assertThat(under(app)).as("the same loader for the next data file").isSameAs(hiding);
    assertThat(hiding).isInstanceOf(HadoopDefaultsHidden.class);
    assertThat(hiding.getParent()).isSameAs(app);
    assertThat(under(hiding)).as("already hiding").isSameAs(hiding);
    assertThat(under(other)).isNotSameAs(hiding).extracting(ClassLoader::getParent).isSameAs(other);
    assertThat(under(LIBRARY)).isSameAs(under(null)).isSameAs(under(LIBRARY)).isNotSameAs(hiding);
  }

  @Test
  void anApplicationsClassLoader_isNotKeptAlive_byItsHidingLoader() throws InterruptedException {
    WeakReference<ClassLoader> app = useAndDrop();

    awaitUntil("the application's class loader is collected", Duration.ofSeconds(30), () -> {
      System.gc();
      return app.get() == null;
    });
  }

  /** Makes a hiding loader for a new application loader, then drops both. */
  private static WeakReference<ClassLoader> useAndDrop() {
    ClassLoader app = new URLClassLoader(new URL[0], LIBRARY);
    assertThat(under(app).getParent()).isSameAs(app);
    return new WeakReference<>(app);
  }

  private static ClassLoader under(ClassLoader context) {
    ClassLoader previous = HadoopDefaultsHidden.enter(context);
    try {
      return HadoopDefaultsHidden.forCurrentThread();
    } finally {
      HadoopDefaultsHidden.exit(previous);
    }
  }
}
