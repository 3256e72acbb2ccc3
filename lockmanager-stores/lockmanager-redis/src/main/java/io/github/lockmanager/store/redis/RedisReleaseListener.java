package io.github.lockmanager.store.redis;

import io.github.lockmanager.store.support.ReleaseListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Wakes the store's waiters when a key they wait for is released on any node. A waiter marks the key's hash as waited
 * for; the release script publishes the storage key on the store's one channel when it finds the mark, and removes
 * it, so uncontended locks publish nothing. One pub/sub connection subscribes to that channel, opened by the first
 * wait and kept until the store closes, however many keys are waited for; Lettuce delivers its messages on its own
 * event loop and subscribes again after a reconnect. While the connection is down, waits return {@code false} and
 * their callers poll; a release published meanwhile is missed, and its waiter sleeps no longer than its own timeout.
 */
final class RedisReleaseListener extends ReleaseListener {
    private static final Logger log = LoggerFactory.getLogger(RedisReleaseListener.class);

    private final Connecting connector;
    private final String channel;
    private StatefulRedisPubSubConnection<String, String> connection;
    /** The answer to the connection's {@code SUBSCRIBE}. */
    private RedisFuture<Void> subscribed;
    private boolean closed;

    /**
     * Opens the pub/sub connection within {@code millis} (at most the store's operation timeout): the waiter that opens
     * it waits no longer than its own wait for the subscription allows.
     */
    @FunctionalInterface
    interface Connecting {
        StatefulRedisPubSubConnection<String, String> connect(long millis) throws Exception;
    }

    RedisReleaseListener(Connecting connector, String channel) {
        this.connector = connector;
        this.channel = channel;
    }

    /**
     * Whether the subscription is open; the first call (and the first after a failed subscription) opens the connection
     * and sends {@code SUBSCRIBE}, then waits for its answer at most {@code millis}. A subscription not answered by then
     * is kept and counted from the call that finds it answered: a short wait must not throw away a slow first answer.
     */
    @Override
    protected boolean listening(long millis) throws InterruptedException {
        StatefulRedisPubSubConnection<String, String> open;
        RedisFuture<Void> answer;
        synchronized (this) {
            if (closed) {
                return false;
            }
            open = connection;
            answer = subscribed;
        }
        if (open == null) {
            return subscribe(millis);
        }
        return isSubscribed(open, answer, 0);
    }

    /** Whether {@code answer} came, within {@code millis}, without a failure; a failure resets for a later try. */
    private boolean isSubscribed(StatefulRedisPubSubConnection<String, String> open, RedisFuture<Void> answer,
                                 long millis) throws InterruptedException {
        try {
            answer.get(millis, TimeUnit.MILLISECONDS);
            return open.isOpen();
        } catch (TimeoutException notYet) {
            return false;
        } catch (ExecutionException e) {
            log.warn("Could not subscribe to the Redis channel {} for lock releases: {}. Waiters poll meanwhile and "
                    + "subscribe again at their next wait", channel, e.getCause().toString());
            synchronized (this) {
                if (connection == open) {
                    connection = null;
                    subscribed = null;
                }
            }
            open.closeAsync();
            return false;
        }
    }

    /** Opens the connection and subscribes, outside the monitor; a racing first wait's connection is closed again. */
    private boolean subscribe(long millis) throws InterruptedException {
        StatefulRedisPubSubConnection<String, String> opened;
        try {
            opened = connector.connect(Math.max(1, millis));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            log.warn("Could not connect to Redis to hear of lock releases on channel {}: {}. Waiters poll meanwhile and "
                    + "connect again at their next wait", channel, e.toString());
            return false;
        }
        opened.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                if (channel.equals(from)) {
                    heard(message);
                }
            }
        });
        boolean keep;
        RedisFuture<Void> answer = null;
        synchronized (this) {
            keep = !closed && connection == null;
            if (keep) {
                connection = opened;
                answer = opened.async().subscribe(channel);
                subscribed = answer;
            }
        }
        if (!keep) {
            opened.closeAsync();
            return listening(millis);
        }
        return isSubscribed(opened, answer, millis);
    }

    /**
     * One message of the channel: a storage key, whose release wakes its waiters, or, for a line of requests (storage
     * keys start with a letter, this with a digit), {@code <owner token length in bytes> <owner token><storage key>}:
     * a withdrawal, told with its owner token. A message in neither form is ignored.
     */
    void heard(String message) {
        if (message.isEmpty() || !Character.isDigit(message.charAt(0))) {
            waiters().wake(message);
            return;
        }
        int space = message.indexOf(' ');
        if (space < 0) {
            return;
        }
        byte[] rest = message.substring(space + 1).getBytes(StandardCharsets.UTF_8);
        int length;
        try {
            length = Integer.parseInt(message.substring(0, space));
        } catch (NumberFormatException malformed) {
            return;
        }
        if (length > rest.length) {
            return;
        }
        waiters().withdrawn(new String(rest, length, rest.length - length, StandardCharsets.UTF_8),
                new String(rest, 0, length, StandardCharsets.UTF_8));
    }

    /** Closes the subscription; waiters are woken and poll. */
    void close() {
        StatefulRedisPubSubConnection<String, String> open;
        synchronized (this) {
            closed = true;
            open = connection;
            connection = null;
            subscribed = null;
        }
        if (open != null) {
            open.close();
        }
        waiters().wakeAll();
    }
}
