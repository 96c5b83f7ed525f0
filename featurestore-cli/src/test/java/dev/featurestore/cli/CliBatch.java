package dev.featurestore.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A child JVM that runs several command lines one after the other through the same entry point
 * as {@code featurestore}'s main ({@link FeatureStoreCli#run}), each with its own standard output
 * and error, so one JVM start serves several commands. Arguments: a JSON file holding an array of
 * argument arrays, and the file to write the results to (an array of {args, exit, out, err}).
 */
final class CliBatch {
  private CliBatch() {}

  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<List<String>> commands = json.readValue(Path.of(args[0]).toFile(), new TypeReference<List<List<String>>>() {});
    List<Map<String, Object>> results = new ArrayList<>();
    for (List<String> command : commands) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit;
      try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
           PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
        exit = FeatureStoreCli.run(command.toArray(String[]::new), o, e, System.getenv());
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("args", command);
      result.put("exit", exit);
      result.put("out", out.toString(StandardCharsets.UTF_8));
      result.put("err", err.toString(StandardCharsets.UTF_8));
      results.add(result);
    }
    json.writeValue(Path.of(args[1]).toFile(), results);
  }
}
