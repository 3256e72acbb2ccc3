package io.github.lockmanager.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fencing tables on each real database: a lower token's write never lands after a higher one's. */
class FencingTableTest {
    private static final String FENCES = "lockmanager_test_fences";
    private static final String DATA = "lockmanager_test_fenced_data";

    private static FencingTable fences(Database database) throws SQLException {
        DataSource source = database.shared();
        FencingTable fences = new FencingTable(source, FENCES);
        fences.initialize();
        fences.initialize();
        try (Connection c = source.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + DATA + " (id VARCHAR(64) NOT NULL PRIMARY KEY, val VARCHAR(64))");
        }
        return fences;
    }

    @AfterAll
    static void dropTables() throws SQLException {
        for (Database database : Database.values()) {
            try (Connection c = database.shared().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + FENCES);
                s.execute("DROP TABLE IF EXISTS " + DATA);
            }
        }
    }

    /** One holder's transaction: admit, write {@code value}, commit; rolled back if refused. */
    private static void write(Database database, FencingTable fences, String resource, long token, String value)
            throws SQLException {
        try (Connection c = database.shared().getConnection()) {
            c.setAutoCommit(false);
            try {
                fences.admit(c, resource, token);
                upsert(c, resource, value);
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private static void upsert(Connection c, String id, String value) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + DATA + " WHERE id = ?");
             PreparedStatement insert = c.prepareStatement("INSERT INTO " + DATA + " (id, val) VALUES (?, ?)")) {
            delete.setString(1, id);
            delete.executeUpdate();
            insert.setString(1, id);
            insert.setString(2, value);
            insert.executeUpdate();
        }
    }

    private static String value(Database database, String id) throws SQLException {
        try (Connection c = database.shared().getConnection();
             PreparedStatement read = c.prepareStatement("SELECT val FROM " + DATA + " WHERE id = ?")) {
            read.setString(1, id);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static String resource(String name) {
        return name + "-" + System.nanoTime();
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aLowerTokenIsRefusedAndItsWritesRolledBackWhileEqualAndHigherOnesAreAdmitted(Database database)
            throws Exception {
        FencingTable fences = fences(database);
        String doc = resource("doc");
        write(database, fences, doc, 5, "first holder");
        write(database, fences, doc, 5, "first holder again");
        assertThatThrownBy(() -> write(database, fences, doc, 4, "overtaken holder"))
                .isInstanceOfSatisfying(StaleFencingTokenException.class, e -> {
                    assertThat(e.resource()).isEqualTo(doc);
                    assertThat(e.token()).isEqualTo(4);
                    assertThat(e.highestAdmitted()).isEqualTo(5);
                    assertThat(e.getMessage()).contains(doc).contains("4").contains("5").contains("Roll");
                });
        assertThat(value(database, doc)).isEqualTo("first holder again");
        write(database, fences, doc, 9, "next holder");
        assertThat(value(database, doc)).isEqualTo("next holder");
        assertThat(fences.highestAdmitted(doc)).hasValue(9);
        assertThat(fences.highestAdmitted(resource("never"))).isEmpty();
    }

    /**
     * The newer holder's admit waits for the older holder's open transaction, so the older one's write commits first
     * and the newer one's lands on top of it; the older holder's next write is refused.
     */
    @ParameterizedTest
    @EnumSource(Database.class)
    void aNewerHoldersAdmitWaitsForTheOlderHoldersTransaction(Database database) throws Exception {
        FencingTable fences = fences(database);
        String doc = resource("race");
        CompletableFuture<Void> newer;
        try (Connection older = database.shared().getConnection()) {
            older.setAutoCommit(false);
            fences.admit(older, doc, 3);
            newer = CompletableFuture.runAsync(() -> {
                try {
                    write(database, fences, doc, 4, "newer");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            upsert(older, doc, "older");
            older.commit();
            older.setAutoCommit(true);
        }
        newer.get(30, TimeUnit.SECONDS);
        assertThat(value(database, doc)).isEqualTo("newer");
        assertThatThrownBy(() -> write(database, fences, doc, 3, "older, late"))
                .isInstanceOf(StaleFencingTokenException.class);
        assertThat(value(database, doc)).isEqualTo("newer");
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void resourcesDifferingInCaseAreDistinct(Database database) throws Exception {
        FencingTable fences = fences(database);
        String doc = resource("Doc");
        write(database, fences, doc, 7, "upper");
        write(database, fences, doc.toLowerCase(), 2, "lower");
        assertThat(fences.highestAdmitted(doc)).hasValue(7);
        assertThat(fences.highestAdmitted(doc.toLowerCase())).hasValue(2);
    }

    /* PostgreSQL's DDL is transactional: made on such a connection and not committed, the table was gone. */
    @ParameterizedTest
    @EnumSource(Database.class)
    void initializeCreatesTheTableAlsoOnAPoolWithAutoCommitOff(Database database) throws Exception {
        String table = "lockmanager_test_fences_manual";
        try (HikariDataSource manualCommit = database.manualCommitPool(2)) {
            new FencingTable(manualCommit, table).initialize();
        }
        try (Connection c = database.shared().getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
                assertThat(rs.next()).isTrue();
            } finally {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @Test
    void badArgumentsAreRefusedNamingWhatIsWrong() throws Exception {
        FencingTable fences = fences(Database.H2);
        assertThatThrownBy(() -> new FencingTable(Database.H2.shared(), "1bad"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'1bad'");
        assertThatThrownBy(() -> new FencingTable(null, FENCES)).hasMessageContaining("dataSource");
        try (Connection c = Database.H2.shared().getConnection()) {
            assertThatThrownBy(() -> fences.admit(c, "doc", 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
            c.setAutoCommit(false);
            assertThatThrownBy(() -> fences.admit(c, "", 1)).hasMessageContaining("resource");
            assertThatThrownBy(() -> fences.admit(c, "x".repeat(256), 1)).hasMessageContaining("at most 255");
            assertThatThrownBy(() -> fences.admit(c, "doc", 0)).hasMessageContaining("at least 1");
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
