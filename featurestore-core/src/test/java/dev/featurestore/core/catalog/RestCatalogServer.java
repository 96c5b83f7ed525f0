package dev.featurestore.core.catalog;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.featurestore.core.storage.LocalFileIO;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * A small Iceberg REST catalog server for tests: the JDK's HTTP server on 127.0.0.1 (ephemeral
 * port) in front of Iceberg's {@link CatalogHandlers}, which apply each request to a JDBC catalog
 * on a SQLite file. It speaks the protocol's core (config, namespaces, tables, commits, metrics)
 * and, if given a token, requires {@code Authorization: Bearer <token>} on every request.
 */
final class RestCatalogServer implements AutoCloseable {
  private static final ObjectMapper MAPPER = mapper();

  private final HttpServer server;
  private final ExecutorService threads;
  private final JdbcCatalog backend;
  private final String token;
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger metricsReports = new AtomicInteger();

  private RestCatalogServer(HttpServer server, ExecutorService threads, JdbcCatalog backend, String token) {
    this.server = server;
    this.threads = threads;
    this.backend = backend;
    this.token = token;
  }

  /** Starts a server whose tables live under {@code dir/warehouse}; {@code token} may be null. */
  static RestCatalogServer start(Path dir, String token) throws IOException {
    JdbcCatalog backend = new JdbcCatalog(ignored -> {
      LocalFileIO io = new LocalFileIO();
      io.initialize(Map.of());
      return io;
    }, null, true);
    backend.initialize("rest-backend", Map.of(
        CatalogProperties.URI, "jdbc:sqlite:" + dir.resolve("rest-catalog.db"),
        CatalogProperties.WAREHOUSE_LOCATION, dir.resolve("warehouse").toString(),
        "jdbc.schema-version", "V1"));
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    server.setExecutor(threads);
    RestCatalogServer rest = new RestCatalogServer(server, threads, backend, token);
    server.createContext("/", rest::handle);
    server.start();
    return rest;
  }

  String uri() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int requests() {
    return requests.get();
  }

  int metricsReports() {
    return metricsReports.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    try {
      if (token != null && !("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        throw new NotAuthorizedException("Not authorized: missing or wrong bearer token");
      }
      Object response = route(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
          query(exchange.getRequestURI().getRawQuery()), exchange.getRequestBody());
      if (response == null) {
        exchange.sendResponseHeaders(204, -1);
      } else {
        send(exchange, 200, MAPPER.writeValueAsBytes(response));
      }
    } catch (RuntimeException e) {
      int code = status(e);
      ErrorResponse error = ErrorResponse.builder().responseCode(code)
          .withType(e.getClass().getSimpleName()).withMessage(String.valueOf(e.getMessage())).build();
      send(exchange, code, MAPPER.writeValueAsBytes(error));
    } finally {
      exchange.close();
    }
  }

  private static void send(HttpExchange exchange, int code, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private Object route(String method, String rawPath, Map<String, String> query, InputStream body) throws IOException {
    List<String> path = new ArrayList<>(Arrays.asList(rawPath.replaceFirst("^/+", "").split("/")));
    if (path.isEmpty() || !path.get(0).equals("v1")) {
      throw new IllegalArgumentException("Unknown path: " + rawPath);
    }
    path.remove(0);
    String first = path.isEmpty() ? "" : path.get(0);
    if (first.equals("config") && method.equals("GET")) {
      return ConfigResponse.builder().build();
    }
    if (first.equals("tables") && path.size() == 2 && path.get(1).equals("rename") && method.equals("POST")) {
      CatalogHandlers.renameTable(backend, read(body, RenameTableRequest.class));
      return null;
    }
    if (!first.equals("namespaces")) {
      throw new IllegalArgumentException("Unknown path: " + rawPath);
    }
    switch (path.size()) {
      case 1:
        if (method.equals("GET")) {
          Namespace parent = query.containsKey("parent") ? namespace(query.get("parent")) : Namespace.empty();
          return CatalogHandlers.listNamespaces(backend, parent);
        }
        if (method.equals("POST")) {
          return CatalogHandlers.createNamespace(backend, read(body, CreateNamespaceRequest.class));
        }
        break;
      case 2: {
        Namespace ns = namespace(path.get(1));
        switch (method) {
          case "HEAD":
            CatalogHandlers.namespaceExists(backend, ns);
            return null;
          case "GET":
            return CatalogHandlers.loadNamespace(backend, ns);
          case "DELETE":
            CatalogHandlers.dropNamespace(backend, ns);
            return null;
          default:
            break;
        }
        break;
      }
      case 3: {
        Namespace ns = namespace(path.get(1));
        if (path.get(2).equals("properties") && method.equals("POST")) {
          return CatalogHandlers.updateNamespaceProperties(backend, ns, read(body, UpdateNamespacePropertiesRequest.class));
        }
        if (path.get(2).equals("tables") && method.equals("GET")) {
          return CatalogHandlers.listTables(backend, ns);
        }
        if (path.get(2).equals("tables") && method.equals("POST")) {
          CreateTableRequest request = read(body, CreateTableRequest.class);
          request.validate();
          return request.stageCreate()
              ? CatalogHandlers.stageTableCreate(backend, ns, request)
              : CatalogHandlers.createTable(backend, ns, request);
        }
        break;
      }
      case 4: {
        TableIdentifier id = TableIdentifier.of(namespace(path.get(1)), decode(path.get(3)));
        switch (method) {
          case "HEAD":
            CatalogHandlers.tableExists(backend, id);
            return null;
          case "GET":
            return CatalogHandlers.loadTable(backend, id, RESTCatalogProperties.SnapshotMode.ALL);
          case "POST":
            return CatalogHandlers.updateTable(backend, id, read(body, UpdateTableRequest.class));
          case "DELETE":
            if (Boolean.parseBoolean(query.getOrDefault("purgeRequested", "false"))) {
              CatalogHandlers.purgeTable(backend, id);
            } else {
              CatalogHandlers.dropTable(backend, id);
            }
            return null;
          default:
            break;
        }
        break;
      }
      case 5:
        if (path.get(4).equals("metrics") && method.equals("POST")) {
          body.readAllBytes(); // clients report scans and commits here; counted, not kept
          metricsReports.incrementAndGet();
          return null;
        }
        break;
      default:
        break;
    }
    throw new UnsupportedOperationException("Unsupported request: " + method + " " + rawPath);
  }

  private static Namespace namespace(String encoded) {
    return Namespace.of(decode(encoded).split("\u001f"));
  }

  private static String decode(String segment) {
    return URLDecoder.decode(segment, StandardCharsets.UTF_8);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          params.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
        }
      }
    }
    return params;
  }

  private static <T> T read(InputStream body, Class<T> type) throws IOException {
    return MAPPER.readValue(body, type);
  }

  private static int status(RuntimeException e) {
    if (e instanceof NotAuthorizedException) {
      return 401;
    }
    if (e instanceof NoSuchNamespaceException || e instanceof NoSuchTableException) {
      return 404;
    }
    if (e instanceof AlreadyExistsException || e instanceof CommitFailedException) {
      return 409;
    }
    if (e instanceof UnsupportedOperationException) {
      return 406;
    }
    if (e instanceof IllegalArgumentException || e instanceof ValidationException || e instanceof NamespaceNotEmptyException) {
      return 400;
    }
    if (e instanceof CommitStateUnknownException) {
      return 500;
    }
    return 500;
  }

  private static ObjectMapper mapper() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    mapper.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false);
    RESTSerializers.registerAll(mapper);
    return mapper;
  }

  @Override
  public void close() throws Exception {
    server.stop(0);
    threads.shutdownNow();
    backend.close();
  }
}
