package dev.featurestore.core.storage.s3;

import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;

/**
 * Iceberg's S3FileIO whose input streams close themselves when a read fails (see
 * {@link ReleasingInputFile}), so that a scan or a planning step failing midway leaves no S3
 * stream open.
 *
 * <p>Public with a no-arg constructor because engines load it by class name ({@code io-impl}, see
 * {@link ObjectStorageIO#fileIOImpl}); not part of the library's compatibility promise.
 */
public class ReleasingS3FileIO extends S3FileIO {
  private static final long serialVersionUID = 1L;

  public ReleasingS3FileIO() {}

  @Override
  public InputFile newInputFile(String path) {
    return new ReleasingInputFile(super.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new ReleasingInputFile(super.newInputFile(path, length));
  }
}
