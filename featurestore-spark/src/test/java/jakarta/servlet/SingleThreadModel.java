package jakarta.servlet;

/**
 * Test classpath only. Spark 4.1's shaded Jetty checks every servlet against this Servlet 5 marker
 * interface (its metrics servlet is created even with the UI off), but the test classpath has
 * Servlet 6 for the loopback S3 server (s3proxy runs on Jetty 12 EE10), which removed it. A cluster
 * has Spark's own servlet-api 5 jar and needs nothing of this.
 */
@Deprecated
public interface SingleThreadModel {}
