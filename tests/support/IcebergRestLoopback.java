/*
 * Apache Iceberg's REST catalog routes (RESTCatalogAdapter and RESTCatalogServlet, iceberg-core's tests
 * jar) over the catalog the properties file describes, served by Jetty on 127.0.0.1 only.
 *
 * Iceberg's own RESTCatalogServer (iceberg-open-api's test fixtures) serves the same routes but binds
 * every interface (Jetty's Server(port)); the tests must listen on loopback only, so the fixture
 * (tests/support/iceberg_rest.py) runs this file instead, with Java's single-file launcher and the jars
 * of tools/iceberg-rest/pom.xml on the class path.
 *
 * Usage: java -cp '.tools/maven/iceberg-rest/*' IcebergRestLoopback.java CATALOG.properties
 * where the file holds `rest.port` and the catalog's properties (catalog-impl, uri, warehouse, io-impl, ...).
 */

import java.io.FileReader;
import java.io.Reader;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public final class IcebergRestLoopback {
  private IcebergRestLoopback() {}

  public static void main(String[] args) throws Exception {
    Properties file = new Properties();
    try (Reader reader = new FileReader(args[0])) {
      file.load(reader);
    }
    Map<String, String> properties = new HashMap<>();
    file.stringPropertyNames().forEach(name -> properties.put(name, file.getProperty(name)));
    int port = Integer.parseInt(properties.remove("rest.port"));

    Catalog catalog = CatalogUtil.buildIcebergCatalog("rest_backend", properties, new Configuration());
    ServletContextHandler routes = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    routes.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");

    Server server = new Server();
    ServerConnector loopback = new ServerConnector(server);
    loopback.setHost("127.0.0.1");
    loopback.setPort(port);
    server.addConnector(loopback);
    server.setHandler(routes);
    server.start();
    server.join();
  }
}
