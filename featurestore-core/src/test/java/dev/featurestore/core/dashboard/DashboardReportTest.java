package dev.featurestore.core.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SyntheticFeatures;
import dev.featurestore.TableDefinition;
import dev.featurestore.TableStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard as a person sees it: rendered by headless Chromium, the DOM it built is checked
 * (the chart's line is drawn through one point per snapshot, the numbers match the table's
 * stats) and a screenshot is kept under {@code target/dashboard/}. The rendering part runs when
 * {@code FEATURESTORE_TEST_CHROMIUM} names the browser ({@code .ci/run} sets it); the page itself
 * is always checked.
 */
class DashboardReportTest {
  @TempDir Path dir;

  private FeatureTable journey(FeatureStore store) {
    FeatureTable table = store.createTable(TableDefinition.builder(SyntheticFeatures.TABLE_ID, SyntheticFeatures.schema())
        .partitionBy(s -> PartitionSpec.builderFor(s).bucket("entity_id", 4).build())
        .build());
    table.ingest().synthetic(3_000, 1).commit();
    table.ingest().synthetic(1_500, 2).commit();
    table.evolveSchema().addColumn("feature_c", Types.DoubleType.get()).commit();
    table.ingest().synthetic(500, 3).commit();
    return table;
  }

  @Test
  void page_isSelfContained_andShowsTheStats() {
    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = journey(store);
      String html = DashboardReport.forTable(table).render();
      TableStats stats = table.stats();
      assertThat(html).doesNotContain("<script").doesNotContain("http://").doesNotContain("https://")
          .doesNotContain("<link");
      assertThat(html).contains("id=\"rows-features.feature_events\">" + String.format(Locale.ROOT, "%,d", stats.rows()) + "<");
      assertThat(html).contains("<path id=\"rows-chart-features.feature_events\" d=\"M");
      assertThat(html).contains("Schema versions").contains("feature_c double");
    }
  }

  @Test
  void renderedInChromium_chartIsDrawn_numbersMatchStats() throws Exception {
    String chromium = System.getenv("FEATURESTORE_TEST_CHROMIUM");
    assumeThat(chromium).as("FEATURESTORE_TEST_CHROMIUM (set by .ci/run)").isNotBlank();
    assumeThat(Path.of(chromium)).exists();

    try (FeatureStore store = FeatureStore.openLocal(dir.resolve("store"))) {
      FeatureTable table = journey(store);
      TableStats stats = table.stats();
      Path artifacts = Path.of("target", "dashboard").toAbsolutePath();
      Files.createDirectories(artifacts);
      Path page = DashboardReport.forTable(table).writeTo(artifacts.resolve("dashboard.html"));
      Path screenshot = artifacts.resolve("dashboard.png");
      Files.deleteIfExists(screenshot);

      List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
          "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
          "--disable-sync", "--disable-dev-shm-usage", "--user-data-dir=" + dir.resolve("chromium-profile"),
          "--window-size=1000,1400", "--screenshot=" + screenshot, page.toUri().toString()));
      run(command);
      assertThat(screenshot).exists();
      assertThat(Files.size(screenshot)).isGreaterThan(10_000);

      command.set(command.indexOf("--screenshot=" + screenshot), "--dump-dom");
      String dom = run(command);
      Files.writeString(artifacts.resolve("dashboard.dom.html"), dom);

      // the chart: the browser's DOM holds the line, with one point per snapshot
      Matcher path = Pattern.compile("<path id=\"rows-chart-features.feature_events\" d=\"([^\"]+)\"").matcher(dom);
      assertThat(path.find()).as("chart path in the rendered DOM").isTrue();
      assertThat(path.group(1).split("L")).hasSize((int) stats.commits().size());
      assertThat(dom).contains("<circle");
      // the numbers a person reads match the table's stats
      assertThat(card(dom, "rows")).isEqualTo(String.format(Locale.ROOT, "%,d", stats.rows()));
      assertThat(card(dom, "files")).isEqualTo(String.format(Locale.ROOT, "%,d", stats.dataFiles()));
      assertThat(card(dom, "snapshots")).isEqualTo(String.format(Locale.ROOT, "%,d", stats.snapshots()));
      assertThat(card(dom, "bytes")).isEqualTo(String.format(Locale.ROOT, "%,d", stats.totalBytes()));
      assertThat(card(dom, "wa")).isEqualTo(String.format(Locale.ROOT, "%.2f", stats.writeAmplification()));
      assertThat(stats.rows()).isEqualTo(5_000);
    }
  }

  private static String card(String dom, String name) {
    Matcher m = Pattern.compile("id=\"" + name + "-features.feature_events\">([^<]+)<").matcher(dom);
    assertThat(m.find()).as("card %s", name).isTrue();
    return m.group(1);
  }

  private static String run(List<String> command) throws Exception {
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    assertThat(process.exitValue()).as("chromium exit code").isZero();
    return out;
  }
}
