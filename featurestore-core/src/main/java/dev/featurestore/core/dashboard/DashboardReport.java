package dev.featurestore.core.dashboard;

import dev.featurestore.InvalidArgumentException;

import dev.featurestore.FeatureStore;
import dev.featurestore.FeatureTable;
import dev.featurestore.SnapshotInfo;
import dev.featurestore.StorageException;
import dev.featurestore.TableId;
import dev.featurestore.TableStats;
import dev.featurestore.core.base.ScanPlanning;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * A dashboard of a table or a whole store as one self-contained HTML file: no script, no
 * stylesheet or font from the network, charts as inline SVG. Open it in any browser, attach it to
 * a ticket, keep it next to a run's logs.
 *
 * <p>For each table: rows over snapshots (a line chart), the snapshots with their row deltas,
 * the schema versions, the warehouse size by kind and the write amplification, the recent
 * activity, and the data files by size (a histogram). Everything comes from the table's metadata
 * ({@link FeatureTable#stats()}, {@link FeatureTable#snapshots()}); no data file is read.
 *
 * <pre>{@code
 * DashboardReport.forTable(store.table("features.feature_events")).writeTo(Path.of("dashboard.html"));
 * DashboardReport.forStore(store).writeTo(Path.of("store.html"));
 * }</pre>
 *
 * <p>The page marks its numbers for tools: the element with {@code id="rows-<table>"} holds the
 * current row count, {@code id="rows-chart-<table>"} the chart's line.
 */
public final class DashboardReport {
  private static final int RECENT = 10;

  private final String title;
  private final List<FeatureTable> tables;

  private DashboardReport(String title, List<FeatureTable> tables) {
    this.title = title;
    this.tables = tables;
  }

  /** A dashboard of one table. */
  public static DashboardReport forTable(FeatureTable table) {
    InvalidArgumentException.requireNonNull(table, "build dashboard", "table");
    return new DashboardReport("featurestore: " + table.id(), List.of(table));
  }

  /** A dashboard of every table of a store, sorted by name. */
  public static DashboardReport forStore(FeatureStore store) {
    InvalidArgumentException.requireNonNull(store, "build dashboard", "store");
    List<FeatureTable> tables = new ArrayList<>();
    for (TableId id : store.listTables()) {
      tables.add(store.table(id));
    }
    return new DashboardReport("featurestore: " + tables.size() + " tables", tables);
  }

  /**
   * Writes the HTML file (replacing it) and returns its path.
   *
   * @throws StorageException if the file cannot be written
   */
  public Path writeTo(Path file) {
    InvalidArgumentException.requireNonNull(file, "write dashboard", "file");
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, render(), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new StorageException("Cannot write dashboard: " + file, e);
    }
  }

  /** The HTML page. */
  public String render() {
    StringBuilder html = new StringBuilder(16_384);
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(esc(title)).append("</title><style>")
        .append("body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}")
        .append("h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccd}")
        .append("h3{font-size:15px;margin:20px 0 6px}")
        .append("table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #dde;padding:3px 8px;text-align:right}")
        .append("th{background:#f3f4f8}td.l,th.l{text-align:left}.cards{display:flex;gap:12px;flex-wrap:wrap}")
        .append(".card{border:1px solid #dde;border-radius:6px;padding:8px 14px;min-width:120px}")
        .append(".card b{display:block;font-size:20px}.neg{color:#b3261e}.pos{color:#1b6e20}")
        .append("</style></head><body>\n<h1>").append(esc(title)).append("</h1>\n<p>Generated ")
        .append(esc(Instant.now().toString())).append(" from table metadata.</p>\n");
    for (FeatureTable table : tables) {
      renderTable(html, table);
    }
    html.append("</body></html>\n");
    return html.toString();
  }

  private static void renderTable(StringBuilder html, FeatureTable table) {
    table.refresh();
    TableStats stats = table.stats();
    List<SnapshotInfo> history = table.snapshots().history();
    String key = table.id().toString();
    html.append("<section id=\"table-").append(esc(key)).append("\"><h2>").append(esc(key)).append("</h2>\n");

    html.append("<div class=\"cards\">");
    card(html, "rows", "rows-" + key, fmt(stats.rows()));
    card(html, "data files", "files-" + key, fmt(stats.dataFiles()));
    card(html, "snapshots", "snapshots-" + key, fmt(stats.snapshots()));
    card(html, "warehouse bytes", "bytes-" + key, fmt(stats.totalBytes()));
    card(html, "write amplification", "wa-" + key, String.format(Locale.ROOT, "%.2f", stats.writeAmplification()));
    html.append("</div>\n");

    html.append("<h3>Rows over snapshots</h3>\n");
    rowsChart(html, key, stats.commits());

    html.append("<h3>Warehouse size</h3>\n<table><tr><th class=\"l\">kind</th><th>bytes</th><th>share</th></tr>");
    sizeRow(html, "data files", stats.dataBytes(), stats.totalBytes());
    sizeRow(html, "manifests and manifest lists", stats.manifestBytes(), stats.totalBytes());
    sizeRow(html, "metadata JSON", stats.metadataBytes(), stats.totalBytes());
    sizeRow(html, "total", stats.totalBytes(), stats.totalBytes());
    html.append("</table>\n");

    html.append("<h3>Snapshots</h3>\n<table id=\"snapshots-table-").append(esc(key)).append("\">")
        .append("<tr><th class=\"l\">snapshot</th><th class=\"l\">committed</th><th class=\"l\">operation</th>")
        .append("<th>schema</th><th>+rows</th><th>-rows</th><th>total rows</th><th>+files</th><th>+bytes</th></tr>");
    for (SnapshotInfo s : history) {
      html.append("<tr><td class=\"l\">").append(s.snapshotId()).append(s.current() ? " (current)" : "")
          .append("</td><td class=\"l\">").append(esc(s.timestamp().toString()))
          .append("</td><td class=\"l\">").append(esc(s.operation()))
          .append("</td><td>").append(s.schemaId())
          .append("</td><td class=\"pos\">+").append(fmt(s.addedRows()))
          .append("</td><td class=\"neg\">-").append(fmt(s.deletedRows()))
          .append("</td><td>").append(fmt(s.totalRows()))
          .append("</td><td>").append(fmt(s.addedDataFiles()))
          .append("</td><td>").append(fmt(s.addedBytes())).append("</td></tr>");
    }
    html.append("</table>\n");

    html.append("<h3>Recent activity</h3>\n<ul>");
    List<SnapshotInfo> recent = new ArrayList<>(history);
    recent.sort(Comparator.comparing(SnapshotInfo::timestamp).reversed());
    for (SnapshotInfo s : recent.subList(0, Math.min(RECENT, recent.size()))) {
      html.append("<li>").append(esc(s.timestamp().toString())).append(": ").append(esc(s.operation()))
          .append(" +").append(fmt(s.addedRows())).append(" / -").append(fmt(s.deletedRows())).append(" rows")
          .append(s.current() ? " (current)" : "").append("</li>");
    }
    if (recent.isEmpty()) {
      html.append("<li>no commits yet</li>");
    }
    html.append("</ul>\n");

    schemaVersions(html, table);
    fileSizes(html, key, table);
    html.append("</section>\n");
  }

  private static void card(StringBuilder html, String label, String id, String value) {
    html.append("<div class=\"card\">").append(esc(label)).append("<b id=\"").append(esc(id)).append("\">")
        .append(esc(value)).append("</b></div>");
  }

  private static void sizeRow(StringBuilder html, String kind, long bytes, long total) {
    html.append("<tr><td class=\"l\">").append(esc(kind)).append("</td><td>").append(fmt(bytes)).append("</td><td>")
        .append(total == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * bytes / total)).append("</td></tr>");
  }

  /** A line of total rows after each commit (oldest first), with a dot per commit. */
  private static void rowsChart(StringBuilder html, String key, List<TableStats.CommitStats> commits) {
    int width = 640;
    int height = 220;
    int pad = 48;
    long max = 1;
    for (TableStats.CommitStats c : commits) {
      max = Math.max(max, c.totalRows());
    }
    html.append("<svg width=\"").append(width).append("\" height=\"").append(height)
        .append("\" role=\"img\" aria-label=\"rows over snapshots\" style=\"border:1px solid #dde\">")
        .append("<line x1=\"").append(pad).append("\" y1=\"").append(height - pad / 2).append("\" x2=\"").append(width - 10)
        .append("\" y2=\"").append(height - pad / 2).append("\" stroke=\"#888\"/>")
        .append("<line x1=\"").append(pad).append("\" y1=\"10\" x2=\"").append(pad).append("\" y2=\"").append(height - pad / 2)
        .append("\" stroke=\"#888\"/>")
        .append("<text x=\"4\" y=\"20\" font-size=\"11\">").append(fmt(max)).append("</text>")
        .append("<text x=\"4\" y=\"").append(height - pad / 2).append("\" font-size=\"11\">0</text>");
    if (commits.isEmpty()) {
      html.append("<text x=\"").append(width / 2 - 40).append("\" y=\"").append(height / 2).append("\">no snapshots</text>");
    } else {
      StringBuilder d = new StringBuilder();
      StringBuilder dots = new StringBuilder();
      int n = commits.size();
      for (int i = 0; i < n; i++) {
        double x = pad + (n == 1 ? (width - pad - 10) / 2.0 : i * (width - pad - 10.0) / (n - 1));
        double y = (height - pad / 2.0) - (commits.get(i).totalRows() * (height - pad / 2.0 - 10) / max);
        d.append(i == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
        dots.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#2b59c3\"><title>snapshot %d: %s rows</title></circle>",
            x, y, commits.get(i).snapshotId(), fmt(commits.get(i).totalRows())));
      }
      html.append("<path id=\"rows-chart-").append(esc(key)).append("\" d=\"").append(d)
          .append("\" fill=\"none\" stroke=\"#2b59c3\" stroke-width=\"2.5\"/>").append(dots)
          .append("<text x=\"").append(pad).append("\" y=\"").append(height - 6).append("\" font-size=\"11\">")
          .append(n).append(" snapshots, oldest to newest</text>");
    }
    html.append("</svg>\n");
  }

  private static void schemaVersions(StringBuilder html, FeatureTable table) {
    html.append("<h3>Schema versions</h3>\n<table><tr><th>schema id</th><th class=\"l\">columns</th></tr>");
    try {
      Table iceberg = table.unwrap(Table.class);
      Map<Integer, org.apache.iceberg.Schema> schemas = new TreeMap<>(iceberg.schemas());
      for (Map.Entry<Integer, org.apache.iceberg.Schema> schema : schemas.entrySet()) {
        List<String> columns = new ArrayList<>();
        for (Types.NestedField field : schema.getValue().columns()) {
          columns.add(field.name() + " " + field.type());
        }
        html.append("<tr><td>").append(schema.getKey()).append(schema.getKey() == iceberg.schema().schemaId() ? " (current)" : "")
            .append("</td><td class=\"l\">").append(esc(String.join(", ", columns))).append("</td></tr>");
      }
    } catch (IllegalArgumentException e) {
      html.append("<tr><td>").append(table.schema().schemaId()).append("</td><td class=\"l\">")
          .append(esc(table.schema().toString())).append("</td></tr>");
    }
    html.append("</table>\n");
  }

  /** Data files of the current snapshot by size, in power-of-four buckets. */
  private static void fileSizes(StringBuilder html, String key, FeatureTable table) {
    html.append("<h3>Data files by size</h3>\n");
    TreeMap<Long, Integer> buckets = new TreeMap<>();
    try {
      Table iceberg = table.unwrap(Table.class);
      if (iceberg.currentSnapshot() != null) {
        try (CloseableIterable<FileScanTask> tasks = ScanPlanning.newCurrentScan(iceberg).planFiles()) {
          for (FileScanTask task : tasks) {
            long size = Math.max(1, task.file().fileSizeInBytes());
            long bucket = 1024;
            while (bucket < size) {
              bucket *= 4;
            }
            buckets.merge(bucket, 1, Integer::sum);
          }
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      html.append("<p>file sizes unavailable: ").append(esc(e.getMessage())).append("</p>\n");
      return;
    }
    if (buckets.isEmpty()) {
      html.append("<p>no data files</p>\n");
      return;
    }
    int max = buckets.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    int barHeight = 18;
    int height = buckets.size() * (barHeight + 6) + 10;
    html.append("<svg id=\"file-sizes-").append(esc(key)).append("\" width=\"640\" height=\"")
        .append(height).append("\" role=\"img\" aria-label=\"data files by size\">");
    int y = 6;
    for (Map.Entry<Long, Integer> bucket : buckets.entrySet()) {
      int w = Math.max(2, bucket.getValue() * 400 / max);
      html.append("<text x=\"0\" y=\"").append(y + 13).append("\" font-size=\"11\">&#8804; ").append(esc(human(bucket.getKey())))
          .append("</text><rect x=\"110\" y=\"").append(y).append("\" width=\"").append(w).append("\" height=\"").append(barHeight)
          .append("\" fill=\"#6a8fd8\"/><text x=\"").append(116 + w).append("\" y=\"").append(y + 13)
          .append("\" font-size=\"11\">").append(bucket.getValue()).append(" files</text>");
      y += barHeight + 6;
    }
    html.append("</svg>\n");
  }

  private static String human(long bytes) {
    if (bytes >= 1L << 30) {
      return (bytes >> 30) + " GiB";
    }
    if (bytes >= 1L << 20) {
      return (bytes >> 20) + " MiB";
    }
    return (bytes >> 10) + " KiB";
  }

  private static String fmt(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  private static String esc(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
