package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.internal.RequestNote;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Finds cycles of waits across nodes, from the store's holders and requests, and ends one wait of each: every owner of
 * a cycle waits for a lock another one of it holds, so none would get its lock before its wait ran out. A request
 * waits for the live holders of its key whose mode conflicts with its own (for a path, also for those of its ancestors
 * that conflict with its intention there) and for the earlier requests of its key that it may not pass
 * ({@link Requests#blocks}); a holder belongs to the request whose owner held it when it asked ({@link RequestNote}:
 * the holder's owner token is one of that node's serials). Permit waits are left out: a permit waiter waits for any one
 * of the holders, not for all, so a cycle through one of them is no deadlock.
 *
 * <p>No false report: a cycle is acted on only when two looks an interval apart find it with the same requests
 * and the same holders, and then only by the node of its youngest request (the latest registered), which fails that
 * wait with {@link LockManagerException.ErrorCode#DEADLOCK}. A node looks only while one of its own requests has
 * waited an interval, every second at first and less often while it finds nothing (up to every 8 s); each look is one
 * listing of the store. So a cycle is ended within about 10 s of closing, within 3 s where the node looked a moment
 * before. The keeper asks for each look; the look runs on a thread of its own ({@link #look}).
 */
final class Deadlocks {
    private static final Logger log = LoggerFactory.getLogger(Deadlocks.class);
    /**
     * How often the keeper asks for a look, the shortest time between two looks, and how long a request waits before
     * its node looks: ten of the manager's wait poll intervals, from 100 ms to 1 s (1 s at the default 100 ms).
     */
    private final Duration interval;
    /**
     * The longest time between two looks, 8 intervals: each look that finds no cycle doubles the time to the next, up
     * to this, so that a node whose fair waiters wait long lists the store every 8 s (at the default) rather than every
     * second; one that finds a cycle looks again after an interval to confirm it.
     */
    private final long longestIntervalNanos;

    private final String nodeId;
    private final LockStore store;
    private final StoreCalls calls;
    private final KeyScope keys;
    private final TimeSource time;
    private final Requests requests;
    private final AtomicLong ended = new AtomicLong();
    /** Whether a look is under way; its end publishes the look's state to the keeper's next check. */
    private final AtomicBoolean looking = new AtomicBoolean();
    private final NamedThreadFactory threads;
    /** The thread of the looks: made at the first look, gone after a minute without one. */
    private final ThreadPoolExecutor apart;
    private final AtomicLong looks = new AtomicLong();
    /** The cycles the last look found, by their {@link #identity}; one look at a time changes it ({@link #looking}). */
    private Set<String> lastSeen = Set.of();
    /** When the next look is due, and the time to it after a look that finds nothing; as {@link #lastSeen}. */
    private long nextLookNanos = System.nanoTime();
    private long intervalNanos;

    Deadlocks(EngineSettings settings, StoreCalls calls, KeyScope keys, Requests requests) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.calls = calls;
        this.keys = keys;
        this.time = settings.timeSource();
        this.requests = requests;
        this.threads = new NamedThreadFactory("lockmanager-" + nodeId + "-deadlocks");
        this.apart = new ThreadPoolExecutor(0, 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), threads);
        Duration tenPolls = settings.waitPollInterval().multipliedBy(10);
        Duration shortest = Duration.ofMillis(100);
        Duration longest = Duration.ofSeconds(1);
        this.interval = tenPolls.compareTo(shortest) < 0 ? shortest : tenPolls.compareTo(longest) > 0 ? longest : tenPolls;
        this.intervalNanos = interval.toNanos();
        this.longestIntervalNanos = interval.toNanos() * 8;
    }

    /** How often the keeper asks for a look. */
    Duration interval() {
        return interval;
    }

    /** How many waits of this node were ended as part of a cycle. */
    long ended() {
        return ended.get();
    }

    /** How many times this node listed the store to look for cycles. */
    long looks() {
        return looks.get();
    }

    /**
     * One look, if a request of this node has waited an interval, the next look is due and none is under way: the
     * keeper decides, and the look itself (a listing of the store, which may take seconds on a large one) runs on the
     * thread of the looks, so that the keeper's renewals of locks and requests never wait for it. A request whose
     * renewal waited behind a long listing ran out and was lost, and its wait went unseen for a minute (a CI run).
     */
    void look() {
        if (looking.get()) {
            return;
        }
        long now = System.nanoTime();
        List<FairTurn> mine = requests.waitingSince(now - interval.toNanos());
        if (mine.isEmpty()) {
            lastSeen = Set.of();
            intervalNanos = interval.toNanos();
            nextLookNanos = now;
            return;
        }
        if (now - nextLookNanos < 0 || !looking.compareAndSet(false, true)) {
            return;
        }
        try {
            apart.execute(() -> {
                try {
                    lookNow(mine, now);
                } finally {
                    looking.set(false);
                }
            });
        } catch (RejectedExecutionException stopped) {
            looking.set(false);
        }
    }

    /** Stops the thread of the looks, waiting for a look under way to end (its store call is bounded). */
    void stop() {
        apart.shutdownNow();
        try {
            if (!threads.awaitExit(STOP_MILLIS, TimeUnit.MILLISECONDS)) {
                log.warn("Deadlock detection of node '{}' did not stop in time: a listing of store {} is hanging",
                        nodeId, store);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final long STOP_MILLIS = 5_000;

    /** Lists the store and ends a cycle seen twice; on the thread of the looks, one at a time. */
    private void lookNow(List<FairTurn> mine, long now) {
        List<LockRecord> records;
        looks.incrementAndGet();
        try {
            records = calls.run(store::list);
        } catch (LockManagerException | RuntimeException e) {
            log.debug("Node '{}' could not list store {} to look for deadlocks: {}", nodeId, store, e.toString());
            return;
        }
        Graph graph = new Graph(records);
        Set<String> seen = new HashSet<>();
        for (FairTurn turn : mine) {
            LockHandle handle = turn.request;
            if (handle == null) {
                continue;
            }
            List<Edge> cycle = graph.cycleThrough(handle.ownerToken());
            if (cycle == null) {
                continue;
            }
            String identity = identity(cycle);
            seen.add(identity);
            if (lastSeen.contains(identity)) {
                end(cycle);
            }
        }
        lastSeen = seen;
        intervalNanos = seen.isEmpty() ? Math.min(longestIntervalNanos, intervalNanos * 2) : interval.toNanos();
        nextLookNanos = now + intervalNanos - interval.toNanos() / 10;
    }

    /** Fails the youngest request's wait of {@code cycle}, if it is this node's. */
    private void end(List<Edge> cycle) {
        Edge youngest = cycle.stream().max(Comparator.comparing((Edge e) -> e.from.record.lockTime())
                .thenComparing(e -> e.from.record.ownerToken())).orElseThrow();
        FairTurn turn = requests.registeredTurn(youngest.from.record.handle());
        if (turn == null || turn.deadlock != null) {
            return;
        }
        String text = describe(cycle, youngest);
        turn.deadlock = text;
        ended.incrementAndGet();
        log.warn("Node '{}' ends a wait that is part of a deadlock: {}", nodeId, text);
        Runnable wake = turn.wake;
        if (wake != null) {
            wake.run();
        }
    }

    private static String identity(List<Edge> cycle) {
        Set<String> parts = new TreeSet<>();
        for (Edge edge : cycle) {
            parts.add(edge.from.record.ownerToken() + ">" + edge.via);
        }
        return String.join(",", parts);
    }

    private static String describe(List<Edge> cycle, Edge youngest) {
        StringBuilder text = new StringBuilder("a cycle of ").append(cycle.size()).append(" waits: ");
        for (Edge edge : cycle) {
            Request from = edge.from;
            text.append(from.note.owner()).append(" on node '").append(from.record.nodeId()).append("' waits for lock '")
                    .append(edge.key).append("' ").append(edge.why).append("; ");
        }
        Request victim = youngest.from;
        return text.append("the wait of ").append(victim.note.owner()).append(" on node '")
                .append(victim.record.nodeId()).append("' for lock '").append(victim.record.key().name())
                .append("' (the latest to ask) is ended so that the others go on").toString();
    }

    /** A request of the store, with what it asks. */
    private record Request(LockRecord record, RequestNote note) {
    }

    /** {@code from} waits for {@code to}, at {@code key}, by the holder or request {@code via}. */
    private record Edge(Request from, Request to, String key, String via, String why) {
    }

    /** The waits among the store's requests, built from one listing. */
    private final class Graph {
        private final Map<String, Request> requestsByToken = new HashMap<>();
        private final Map<LockKey, List<LockRecord>> holders = new HashMap<>();
        private final Map<LockKey, List<Request>> lines = new HashMap<>();
        /** The requests by the prefix of their owner tokens: the node that made them. */
        private final Map<String, List<Request>> byPrefix = new HashMap<>();

        Graph(List<LockRecord> records) {
            Instant now = time.now();
            for (LockRecord record : records) {
                if (!record.expirationTime().isAfter(now) || !keys.includes(record.key())) {
                    continue;
                }
                if (record.key().isRequests()) {
                    Request request = new Request(record, RequestNote.read(record.threadName()));
                    requestsByToken.put(record.ownerToken(), request);
                    lines.computeIfAbsent(record.key().lockKey(), k -> new ArrayList<>()).add(request);
                    String prefix = OwnerTokens.prefixOf(record.ownerToken());
                    if (prefix != null) {
                        byPrefix.computeIfAbsent(prefix, p -> new ArrayList<>()).add(request);
                    }
                } else {
                    holders.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(record);
                }
            }
        }

        /** A cycle of waits from the request of {@code token} back to it, or {@code null}. */
        List<Edge> cycleThrough(String token) {
            Request start = requestsByToken.get(token);
            return start == null ? null : search(start, start, new ArrayList<>(), new HashSet<>());
        }

        private List<Edge> search(Request at, Request start, List<Edge> path, Set<String> visited) {
            for (Edge edge : waitsOf(at)) {
                path.add(edge);
                if (edge.to == start) {
                    return new ArrayList<>(path);
                }
                if (visited.add(edge.to.record.ownerToken())) {
                    List<Edge> found = search(edge.to, start, path, visited);
                    if (found != null) {
                        return found;
                    }
                }
                path.remove(path.size() - 1);
            }
            return null;
        }

        /** What {@code request} waits for, as requests: the owners of its blockers, and earlier requests. */
        private List<Edge> waitsOf(Request request) {
            List<Edge> edges = new ArrayList<>();
            LockMode mode = request.note.mode();
            if (mode == LockMode.PERMIT) {
                return edges;
            }
            LockKey key = request.record.key().lockKey();
            holdersIn(request, key, mode, edges);
            char separator = request.note.separator();
            if (separator != 0) {
                String name = key.name();
                for (int at = name.indexOf(separator); at >= 0; at = name.indexOf(separator, at + 1)) {
                    if (at > 0) {
                        holdersIn(request, key.withName(name.substring(0, at)), mode.intention(), edges);
                    }
                }
            }
            for (Request earlier : lines.getOrDefault(key, List.of())) {
                if (Requests.IN_LINE.compare(earlier.record, request.record) < 0
                        && earlier.note.mode() != LockMode.PERMIT && Requests.blocks(earlier.note.mode(), mode)) {
                    edges.add(new Edge(request, earlier, key.name(), earlier.record.ownerToken(),
                            "behind the earlier request of " + earlier.note.owner()));
                }
            }
            return edges;
        }

        /** Adds an edge to the request of the owner of each holder of {@code key} that keeps {@code mode} out. */
        private void holdersIn(Request request, LockKey key, LockMode mode, List<Edge> edges) {
            for (LockRecord holder : holders.getOrDefault(key, List.of())) {
                if (!holder.mode().conflictsWith(mode)) {
                    continue;
                }
                String prefix = OwnerTokens.prefixOf(holder.ownerToken());
                long serial = prefix == null ? -1 : OwnerTokens.serialOf(holder.ownerToken(), prefix);
                if (serial < 0) {
                    continue;
                }
                for (Request owner : byPrefix.getOrDefault(prefix, List.of())) {
                    if (owner != request && owner.note.holds(serial)) {
                        edges.add(new Edge(request, owner, key.name(), holder.ownerToken(),
                                "held " + holder.mode() + " by " + owner.note.owner()));
                    }
                }
            }
        }
    }
}
