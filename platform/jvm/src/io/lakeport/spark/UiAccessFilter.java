package io.lakeport.spark;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Lets only the platform's proxy into an engine's Spark UI (`spark.ui.filters`).
 *
 * <p>The UI listens on loopback, where the engines of other teams (other OS users) could reach it too. Every
 * request must carry the engine's token in {@value #HEADER}; the engine sets the token over py4j right after its
 * SparkContext starts, from the init message of its private channel, so it is never on a command line, in the
 * environment or in the Spark conf. Until it is set, every request is refused.
 */
public final class UiAccessFilter implements Filter {
  /** The header the platform's proxy sends. */
  public static final String HEADER = "X-Lakeport-UI-Token";

  private static volatile byte[] token;

  /** Sets the token this engine's UI accepts (called once by the engine, over py4j). */
  public static void token(String value) {
    token = value == null || value.isEmpty() ? null : value.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void init(FilterConfig config) {}

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    byte[] expected = token;
    String given = ((HttpServletRequest) request).getHeader(HEADER);
    if (expected == null || given == null
        || !MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
      ((HttpServletResponse) response).sendError(HttpServletResponse.SC_FORBIDDEN,
          "The Spark UI of a Lakeport engine is reached through Lakeport.");
      return;
    }
    chain.doFilter(request, response);
  }

  @Override
  public void destroy() {}
}
