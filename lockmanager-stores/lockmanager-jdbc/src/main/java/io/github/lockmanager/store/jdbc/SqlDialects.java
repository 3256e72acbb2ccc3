package io.github.lockmanager.store.jdbc;

import java.util.Locale;

/** The dialects the JDBC store supports, picked by what the driver reports. */
final class SqlDialects {
    private SqlDialects() {
    }

    /**
     * The dialect of a database, by the product name and version its driver reports; {@code null} if not
     * supported.
     */
    static SqlDialect of(String productName, int majorVersion, int minorVersion) {
        String product = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (product.contains("postgresql")) {
            return new PostgresDialect();
        }
        if (product.contains("mariadb")) {
            boolean returning = majorVersion > 10 || (majorVersion == 10 && minorVersion >= 5);
            return new MySqlDialect("MariaDB", "mariadb.sql", returning);
        }
        if (product.contains("mysql")) {
            return new MySqlDialect("MySQL", "mysql.sql", false);
        }
        if (product.equals("h2")) {
            return new H2Dialect();
        }
        return null;
    }
}
