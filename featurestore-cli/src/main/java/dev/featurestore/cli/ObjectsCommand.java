package dev.featurestore.cli;

import dev.featurestore.FeatureStore;
import dev.featurestore.ListOptions;
import dev.featurestore.ObjectBrowser;
import dev.featurestore.ObjectHead;
import dev.featurestore.ObjectPage;
import dev.featurestore.UploadResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code objects}: the store's bucket through the library's object browser, with its guards:
 * every key checked by the one key rule, writes only to {@code raw/} (staged uploads), and no
 * delete under {@code warehouse/} without {@code --force}.
 */
@Command(name = "objects", description = "Lists, reads, uploads (to raw/) and deletes objects in the store's bucket.",
    subcommands = {ObjectsCommand.Ls.class, ObjectsCommand.Head.class, ObjectsCommand.Get.class, ObjectsCommand.Put.class,
        ObjectsCommand.Rm.class})
final class ObjectsCommand {
  @Command(name = "ls", description = "Lists objects and folders under a prefix (--recursive: every object).")
  static final class Ls extends StoreCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "PREFIX", defaultValue = "", description = "e.g. warehouse/ (default: the top).")
    String prefix;

    @Option(names = "--recursive", description = "Every object under the prefix, no folders.")
    boolean recursive;

    @Mixin Output output;

    @Override
    int run(FeatureStore store) {
      ObjectBrowser objects = store.objects();
      List<Map<String, Object>> rows = new ArrayList<>();
      if (recursive) {
        try (Stream<dev.featurestore.ObjectSummary> all = objects.listAll(prefix)) {
          all.forEach(o -> rows.add(Values.row("key", o.key(), "size", o.size(), "last_modified", o.lastModified())));
        }
      } else {
        ListOptions options = ListOptions.prefix(prefix).delimiter("/");
        while (true) {
          ObjectPage page = objects.list(options);
          page.commonPrefixes().forEach(p -> rows.add(Values.row("key", p, "size", null, "last_modified", null)));
          page.objects().forEach(o -> rows.add(Values.row("key", o.key(), "size", o.size(), "last_modified", o.lastModified())));
          if (page.nextToken().isEmpty()) {
            break;
          }
          options = options.after(page.nextToken().get());
        }
      }
      output.rows(out(), rows);
      return ExitCodes.OK;
    }
  }

  @Command(name = "head", description = "Shows an object's size, ETag, content type, last modified and user metadata.")
  static final class Head extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY")
    String key;

    @Mixin Output output;

    @Override
    int run(FeatureStore store) {
      ObjectHead h = store.objects().head(key);
      output.object(out(), Values.row("key", h.key(), "size", h.size(), "etag", h.etag(), "content_type", h.contentType(),
          "last_modified", h.lastModified(), "user_metadata", h.userMetadata()));
      return ExitCodes.OK;
    }
  }

  @Command(name = "get", description = "Writes an object's content to stdout or a file.")
  static final class Get extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY")
    String key;

    @Option(names = "--out", paramLabel = "FILE", description = "Write to this file (never replaced) instead of stdout.")
    Path file;

    @Override
    int run(FeatureStore store) throws Exception {
      ObjectBrowser objects = store.objects();
      long size = objects.head(key).size();
      Progress progress = file == null ? Progress.start(cli().stderr(), Progress.Mode.off, "get") : progress("get");
      try (InputStream in = objects.get(key);
           OutputStream target = file == null ? null : Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
        OutputStream sink = target == null ? cli().stdout() : target;
        byte[] buffer = new byte[1 << 16];
        long done = 0;
        for (int n; (n = in.read(buffer)) > 0; ) {
          sink.write(buffer, 0, n);
          done += n;
          progress.update(done, size, Values.bytes(done) + " of " + Values.bytes(size));
        }
        sink.flush();
      } finally {
        progress.finish();
      }
      return ExitCodes.OK;
    }
  }

  @Command(name = "put", description = "Uploads a file to raw/<NAME> (staged uploads: the only place the browser writes).")
  static final class Put extends StoreCommand {
    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Parameters(index = "1", arity = "0..1", paramLabel = "NAME", description = "The name under raw/ (default: the file's name).")
    String name;

    @Option(names = "--overwrite", description = "Replace an existing object.")
    boolean overwrite;

    @Option(names = "--content-type", paramLabel = "TYPE")
    String contentType;

    @Mixin Output output;

    @Override
    int run(FeatureStore store) throws Exception {
      if (!Files.isRegularFile(file)) {
        throw new dev.featurestore.NotFoundException("Cannot upload file: no such file: " + file);
      }
      var upload = store.objects().stage(name != null ? name : file.getFileName().toString()).from(file).overwrite(overwrite);
      if (contentType != null) {
        upload = upload.contentType(contentType);
      }
      Progress progress = progress("put");
      upload = upload.listener((sent, total) -> progress.update(sent, total, Values.bytes(sent) + " of " + Values.bytes(total)));
      UploadResult r;
      try {
        r = upload.commit();
      } finally {
        progress.finish();
      }
      output.object(out(), Values.row("key", r.key(), "bytes", r.bytes(), "etag", r.etag(), "parts", r.parts()));
      return ExitCodes.OK;
    }
  }

  @Command(name = "rm", description = "Deletes an object; keys under warehouse/ (table data) need --force.")
  static final class Rm extends StoreCommand {
    @Parameters(index = "0", paramLabel = "KEY")
    String key;

    @Option(names = "--force", description = "Delete table data under warehouse/ anyway (tables that point to it break).")
    boolean force;

    @Override
    int run(FeatureStore store) {
      store.objects().delete(key, force);
      out().println("deleted " + key);
      out().flush();
      return ExitCodes.OK;
    }
  }
}
