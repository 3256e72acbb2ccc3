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

    /**
     * The commands that the store's scripts call, summed since the last reset: those the server counts inside a script
     * as well as outside, the scripts' own calls and the reading of these counts left out.
     */
    long insideScripts() {
        long sum = 0;
        for (String command : new String[]{"time", "hgetall", "hget", "hmget", "hset", "hdel", "get", "set",
                "lastsave", "pttl", "pexpire", "publish"}) {
            sum += calls(command);
        }
        return sum;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
