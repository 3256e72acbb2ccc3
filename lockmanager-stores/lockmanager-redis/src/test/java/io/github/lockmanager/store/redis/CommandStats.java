package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.util.Map;

/** What a server counted of each command ({@code INFO commandstats}), read apart from the store's connections. */
final class CommandStats implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    CommandStats(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    RedisCommands<String, String> commands() {
        return connection.sync();
    }

    void reset() {
        connection.sync().configResetstat();
    }

    /** How many times {@code command} ran since the last reset. */
    long calls(String command) {
        Map<String, String> fields = RedisServerCheck.parse(connection.sync().info("commandstats"));
        String stat = fields.get("cmdstat_" + command);
        if (stat == null) {
            return 0;
        }
        int from = stat.indexOf("calls=") + "calls=".length();
        return Long.parseLong(stat.substring(from, stat.indexOf(',', from)));
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
