package dev.featurestore.core.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import dev.featurestore.core.catalog.VersionHint;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.FileIO;

/**
 * Every file a table's metadata references: the current metadata file and its log, statistics
 * files, and for every known snapshot its manifest list, manifests and their live data and delete
 * files. Locations are normalized ({@code file:} URIs to paths) so they compare with listings.
 */
final class ReachableFiles {
  private ReachableFiles() {}

  static Set<String> of(Table table) {
    Set<String> files = new HashSet<>();
    FileIO io = table.io();
    if (table instanceof HasTableOperations ops) {
      TableMetadata metadata = ops.operations().current();
      if (metadata.metadataFileLocation() != null) {
        files.add(normalize(metadata.metadataFileLocation()));
      }
      for (TableMetadata.MetadataLogEntry entry : metadata.previousFiles()) {
        files.add(normalize(entry.file()));
      }
      // the hint and copies path-based readers use, written beside the metadata after each commit
      VersionHint.keptFiles(metadata).forEach(f -> files.add(normalize(f)));
    }
    for (StatisticsFile stats : table.statisticsFiles()) {
      files.add(normalize(stats.path()));
    }
    for (PartitionStatisticsFile stats : table.partitionStatisticsFiles()) {
      files.add(normalize(stats.path()));
    }
    Set<String> manifestsSeen = new HashSet<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        files.add(normalize(snapshot.manifestListLocation()));
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        if (!manifestsSeen.add(manifest.path())) {
          continue;
        }
        files.add(normalize(manifest.path()));
        try {
          if (manifest.content() == ManifestContent.DATA) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, table.specs())) {
              for (DataFile file : reader) {
                files.add(normalize(file.location()));
              }
            }
          } else {
            try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
              for (DeleteFile file : reader) {
                files.add(normalize(file.location()));
              }
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return files;
  }

  /** {@code file:} URIs become plain paths; other locations are kept as they are. */
  static String normalize(String location) {
    if (location.startsWith("file:")) {
      return Paths.get(URI.create(location)).toString();
    }
    return location;
  }
}
