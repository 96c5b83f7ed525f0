package dev.featurestore.cli;

import dev.featurestore.AlreadyExistsException;
import dev.featurestore.CommitConflictException;
import dev.featurestore.CommitStateUnknownException;
import dev.featurestore.FeatureStoreException;
import dev.featurestore.InvalidStateException;
import dev.featurestore.NotFoundException;
import dev.featurestore.StorageException;
import dev.featurestore.ValidationException;
import dev.featurestore.duckdb.SqlRefusedException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;

/**
 * The exit status of a command, by the class of its failure: what the caller should do next.
 * Scripts test these numbers; they are part of the command's contract (docs/cli.md).
 */
final class ExitCodes {
  /** The command did what it was asked. */
  static final int OK = 0;
  /** A check failed ({@code doctor}) or an error of no known class. */
  static final int FAILED = 1;
  /** Fix the input: a bad argument, option, file, SQL text or value ({@link ValidationException}). */
  static final int BAD_INPUT = 2;
  /** A table, snapshot, ref, object or store that does not exist ({@link NotFoundException}). */
  static final int NOT_FOUND = 3;
  /** The store changed under the command or already holds it: look, then retry. */
  static final int CONFLICT = 4;
  /** The bucket, disk or catalog failed ({@link StorageException}): retry later or fix access. */
  static final int STORAGE = 5;

  private ExitCodes() {}

  /** The exit status for a failure; the most specific class wins. */
  static int of(Throwable failure) {
    if (failure instanceof NotFoundException) {
      return NOT_FOUND;
    }
    if (failure instanceof CommitConflictException || failure instanceof CommitStateUnknownException
        || failure instanceof AlreadyExistsException || failure instanceof InvalidStateException) {
      return CONFLICT;
    }
    if (failure instanceof StorageException) {
      return STORAGE;
    }
    if (failure instanceof ValidationException || failure instanceof SqlRefusedException) {
      return BAD_INPUT;
    }
    // the command's own files (--out, ingest sources): the JDK's exceptions, same classes
    if (failure instanceof FileAlreadyExistsException) {
      return CONFLICT;
    }
    if (failure instanceof NoSuchFileException) {
      return NOT_FOUND;
    }
    if (failure instanceof IOException) {
      return STORAGE;
    }
    return FAILED;
  }

  /** The one-line message the user sees for a failure (the library's messages are already one line). */
  static String message(Throwable failure) {
    String message = failure.getMessage();
    if (failure instanceof FeatureStoreException && message != null) {
      return message;
    }
    if (failure instanceof FileAlreadyExistsException e) {
      return "Cannot write file: already exists (never replaced): " + e.getFile();
    }
    if (failure instanceof NoSuchFileException e) {
      return "Cannot open file: no such file or directory: " + e.getFile();
    }
    String type = failure.getClass().getSimpleName();
    return message == null || message.isBlank() ? type : type + ": " + FeatureStoreException.printable(message);
  }
}
