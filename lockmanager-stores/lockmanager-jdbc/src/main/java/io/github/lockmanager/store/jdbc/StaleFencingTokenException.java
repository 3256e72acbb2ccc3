package io.github.lockmanager.store.jdbc;

import java.sql.SQLException;

/**
 * A write was refused by a {@link FencingTable}: a higher fencing token was admitted for the resource before, so the
 * lock this token came from has passed to another holder. The caller's transaction must be rolled back.
 */
public final class StaleFencingTokenException extends SQLException {
    private final String resource;
    private final long token;
    private final long highestAdmitted;

    StaleFencingTokenException(String resource, long token, long highestAdmitted) {
        super("write to '" + resource + "' with fencing token " + token + " refused: token " + highestAdmitted
                + " was admitted before, so the lock has passed to another holder. Roll the transaction back");
        this.resource = resource;
        this.token = token;
        this.highestAdmitted = highestAdmitted;
    }

    public String resource() {
        return resource;
    }

    public long token() {
        return token;
    }

    public long highestAdmitted() {
        return highestAdmitted;
    }
}
