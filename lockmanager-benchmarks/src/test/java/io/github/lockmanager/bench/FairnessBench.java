package io.github.lockmanager.bench;

import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Figure 17, on Redis: one key taken in turn by 2 threads on each of 2 nodes, each holding it 2 ms and asking again at
 * once, in turns of {@code throughputTime}, six per side alternated after an uncounted one. For each acquisition: how
 * long its wait took, whether the key moved to the other node, and how many later requests were served before it
 * (inversions: pairs asked in one order and granted in the other). Ours fair ({@code LockSpec.fair}) beside Redisson's
 * {@code RFairLock}, and ours fair beside ours unfair (the default); then the commands an uncontended fair cycle costs.
 * The same on PostgreSQL, ours fair beside ours unfair.
 */
final class FairnessBench {
    private static final String REDIS = "Redis";
    private static final long HOLD_MILLIS = 2;

    private final Settings settings;
    private final Report report;
    private final String run = Long.toString(System.currentTimeMillis(), 36);

    FairnessBench(Settings settings, Report report) {
        this.settings = settings;
        this.report = report;
    }

    void run() throws Exception {
        String client = "bench-fair-" + run;
        try (RedisContenders.Ours fairA = (RedisContenders.Ours) new RedisContenders.Ours("a", client).fair();
             RedisContenders.Ours fairB = (RedisContenders.Ours) new RedisContenders.Ours("b", client).fair();
             RedisContenders.Ours unfairA = new RedisContenders.Ours("a", client);
             RedisContenders.Ours unfairB = new RedisContenders.Ours("b", client);
             Contenders.RedissonLock redissonA = redissonFair(); Contenders.RedissonLock redissonB = redissonFair()) {
            Turns fair = new Turns();
            Turns redisson = new Turns();
            Turns unfair = new Turns();
            // a turn each first, not counted: the first waits of a side run its code for the first time
            Duration warmUp = settings.throughputTime().dividedBy(3);
            contend(fairA, fairB, "f-ours-" + run, warmUp);
            contend(redissonA, redissonB, "f-redisson-" + run, warmUp);
            contend(unfairA, unfairB, "f-unfair-" + run, warmUp);
            // short turns, many of them, alternated (each pair in the other order than the last): a turn that a
            // neighbour's burst on this shared machine slows weighs one pair, and the ratio is the pairs' median
            for (int turn = 0; turn < PAIRS; turn++) {
                if (turn % 2 == 0) {
                    fair.add(contend(fairA, fairB, "f-ours-" + run, settings.throughputTime()));
                    redisson.add(contend(redissonA, redissonB, "f-redisson-" + run, settings.throughputTime()));
                } else {
                    redisson.add(contend(redissonA, redissonB, "f-redisson-" + run, settings.throughputTime()));
                    fair.add(contend(fairA, fairB, "f-ours-" + run, settings.throughputTime()));
                }
                unfair.add(contend(unfairA, unfairB, "f-unfair-" + run, settings.throughputTime()));
            }
            String figure = "17. fair turns across nodes: ";
            double[] p99Ratios = Turns.ratios(fair, redisson, t -> t.p(0.99));
            double[] worstRatios = Turns.ratios(fair, redisson, Turns::max);
            report.add(figure + "wait p99, fair vs Redisson RFairLock", REDIS, Report.millis(fair.median(t -> t.p(0.99))),
                    Report.millis(redisson.median(t -> t.p(0.99))), median(p99Ratios),
                    "4 threads on 2 nodes, one key, each holding it " + HOLD_MILLIS + " ms and asking again at once; "
                            + PAIRS + " alternated pairs of " + settings.throughputTime().toSeconds() + " s turns: each "
                            + "side's median turn p99, and the median of the pairs' ratios (range "
                            + range(p99Ratios) + "); below 1 is better; all turns pooled: p99 "
                            + Report.millis(fair.p(0.99)) + " against " + Report.millis(redisson.p(0.99)) + "; ours "
                            + fair.summary() + "; theirs " + redisson.summary());
            report.add(figure + "worst wait, fair vs Redisson RFairLock", REDIS, Report.millis(fair.max()),
                    Report.millis(redisson.max()), fair.max() / redisson.max(), "the same turns: the longest wait of "
                            + "all; the pairs' ratios of their longest waits: median "
                            + String.format(Locale.ROOT, "%.2f", median(worstRatios)) + ", range " + range(worstRatios));
            report.add(figure + "wait p99, fair vs ours unfair", REDIS, Report.millis(fair.p(0.99)),
                    Report.millis(unfair.p(0.99)), fair.p(0.99) / unfair.p(0.99),
                    "the same load; ours unfair (the default) " + unfair.summary());
            report.add(figure + "cross-node hand-off, fair vs unfair", REDIS, Report.millis(fair.crossNodeGap()),
                    Report.millis(unfair.crossNodeGap()), fair.crossNodeGap() / unfair.crossNodeGap(),
                    "median time from a release on one node to the grant on the other, among grants that moved");
            if (!settings.smoke()) {
                // the smoke run checks the figure's code on Redis; PostgreSQL's is the same with another store
                postgres(client);
            }
            try (RedisMonitor monitor = new RedisMonitor()) {
                String fairCommands = monitor.perCycle(200, () -> {
                    fairA.tryLock("f-cost-" + run);
                    fairA.unlock("f-cost-" + run);
                });
                String unfairCommands = monitor.perCycle(200, () -> {
                    unfairA.tryLock("u-cost-" + run);
                    unfairA.unlock("u-cost-" + run);
                });
                report.add(figure + "commands per uncontended lock+unlock", REDIS, fairCommands, unfairCommands,
                        Double.NaN, "fair reads the key's line of requests first (the server's MONITOR, a script's "
                                + "own calls apart)");
            }
        }
    }

    /**
     * The same load on PostgreSQL, ours fair beside ours unfair (the peers have no fair lock there): waits, the
     * cross-node hand-off (LISTEN/NOTIFY), and the round trips of an uncontended fair lock+unlock.
     */
    private void postgres(String client) throws Exception {
        Contenders.Database db = Contenders.Database.POSTGRESQL;
        String store = "PostgreSQL";
        try (Contenders.Ours fairA = (Contenders.Ours) new Contenders.Ours(db, "a", client).fair();
             Contenders.Ours fairB = (Contenders.Ours) new Contenders.Ours(db, "b", client).fair();
             Contenders.Ours unfairA = new Contenders.Ours(db, "a", client);
             Contenders.Ours unfairB = new Contenders.Ours(db, "b", client)) {
            Duration warmUp = settings.throughputTime().dividedBy(3);
            contend(fairA, fairB, "pf-ours-" + run, warmUp);
            contend(unfairA, unfairB, "pf-unfair-" + run, warmUp);
            Turns fair = new Turns();
            Turns unfair = new Turns();
            for (int turn = 0; turn < 2; turn++) {
                fair.add(contend(fairA, fairB, "pf-ours-" + run, settings.throughputTime().multipliedBy(2)));
                unfair.add(contend(unfairA, unfairB, "pf-unfair-" + run, settings.throughputTime().multipliedBy(2)));
            }
            String figure = "17. fair turns across nodes: ";
            report.add(figure + "wait p99, fair vs ours unfair", store, Report.millis(fair.p(0.99)),
                    Report.millis(unfair.p(0.99)), fair.p(0.99) / unfair.p(0.99), "as on Redis; ours fair "
                            + fair.summary() + "; unfair " + unfair.summary());
            report.add(figure + "cross-node hand-off, fair vs unfair", store, Report.millis(fair.crossNodeGap()),
                    Report.millis(unfair.crossNodeGap()), fair.crossNodeGap() / unfair.crossNodeGap(),
                    "median time from a release on one node to the grant on the other (LISTEN/NOTIFY), among grants "
                            + "that moved");
            int cycles = 200;
            long before = fairA.roundTrips();
            for (int i = 0; i < cycles; i++) {
                fairA.tryLock("pf-cost-" + run);
                fairA.unlock("pf-cost-" + run);
            }
            double fairTrips = (double) (fairA.roundTrips() - before) / cycles;
            before = unfairA.roundTrips();
            for (int i = 0; i < cycles; i++) {
                unfairA.tryLock("pu-cost-" + run);
                unfairA.unlock("pu-cost-" + run);
            }
            double unfairTrips = (double) (unfairA.roundTrips() - before) / cycles;
            report.add(figure + "round trips per uncontended lock+unlock", store,
                    String.format(Locale.ROOT, "%.2f", fairTrips), String.format(Locale.ROOT, "%.2f", unfairTrips),
                    fairTrips / unfairTrips, "statements and commits counted on the connection; fair reads the key's "
                            + "line of requests first");
        }
    }

    /** Redisson's fair lock ({@code RFairLock}): a queue of waiters in Redis, each woken by pub/sub. */
    private static Contenders.RedissonLock redissonFair() {
        return new Contenders.RedissonLock("Redisson RFairLock", RedissonClient::getFairLock);
    }

    /** One acquisition: who, asked when, granted when, released when (nanoTime). */
    private record Grant(int thread, int node, long asked, long granted, long released) {
    }

    private static final int PAIRS = 6;

    /** The median of {@code sorted}; figure 18 reads its kills by it too. */
    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String range(double[] sorted) {
        return String.format(Locale.ROOT, "%.2f-%.2f", sorted[0], sorted[sorted.length - 1]);
    }

    /** The grants of a side's turns. */
    private static final class Turns {
        private final List<List<Grant>> turns = new ArrayList<>();

        void add(List<Grant> turn) {
            turns.add(turn);
        }

        private double[] waits() {
            return turns.stream().flatMap(List::stream).mapToDouble(g -> g.granted - g.asked).sorted().toArray();
        }

        /** Each turn on its own. */
        private List<Turns> each() {
            List<Turns> each = new ArrayList<>();
            for (List<Grant> turn : turns) {
                Turns one = new Turns();
                one.add(turn);
                each.add(one);
            }
            return each;
        }

        /** The median over this side's turns of {@code figure}. */
        double median(java.util.function.ToDoubleFunction<Turns> figure) {
            return FairnessBench.median(each().stream().mapToDouble(figure).sorted().toArray());
        }

        /** {@code figure} of a's turn over b's turn, for each pair of turns, sorted. */
        static double[] ratios(Turns a, Turns b, java.util.function.ToDoubleFunction<Turns> figure) {
            List<Turns> as = a.each();
            List<Turns> bs = b.each();
            double[] ratios = new double[Math.min(as.size(), bs.size())];
            for (int i = 0; i < ratios.length; i++) {
                ratios[i] = figure.applyAsDouble(as.get(i)) / figure.applyAsDouble(bs.get(i));
            }
            Arrays.sort(ratios);
            return ratios;
        }

        double p(double quantile) {
            double[] waits = waits();
            return waits[Math.min(waits.length - 1, (int) Math.ceil(quantile * waits.length) - 1)];
        }

        double max() {
            double[] waits = waits();
            return waits[waits.length - 1];
        }

        /** Share of grants whose node differs from the previous grant's. */
        double moved() {
            long moved = 0;
            long grants = 0;
            for (List<Grant> turn : turns) {
                for (int i = 1; i < turn.size(); i++) {
                    grants++;
                    moved += turn.get(i).node != turn.get(i - 1).node ? 1 : 0;
                }
            }
            return grants == 0 ? 0 : (double) moved / grants;
        }

        double crossNodeGap() {
            List<Long> gaps = new ArrayList<>();
            for (List<Grant> turn : turns) {
                for (int i = 1; i < turn.size(); i++) {
                    if (turn.get(i).node != turn.get(i - 1).node) {
                        gaps.add(turn.get(i).granted - turn.get(i - 1).released);
                    }
                }
            }
            Collections.sort(gaps);
            return gaps.isEmpty() ? Double.NaN : gaps.get(gaps.size() / 2);
        }

        /** Pairs asked in one order and granted in the other. */
        long inversions() {
            long inversions = 0;
            for (List<Grant> turn : turns) {
                List<Grant> byAsked = new ArrayList<>(turn);
                byAsked.sort(Comparator.comparingLong(Grant::asked));
                for (int i = 0; i < byAsked.size(); i++) {
                    for (int j = i + 1; j < byAsked.size() && byAsked.get(j).asked < byAsked.get(i).granted; j++) {
                        if (byAsked.get(j).granted < byAsked.get(i).granted) {
                            inversions++;
                        }
                    }
                }
            }
            return inversions;
        }

        int grants() {
            return turns.stream().mapToInt(List::size).sum();
        }

        String summary() {
            return String.format(Locale.ROOT, "%d grants, median wait %s, %.0f %% moved to the other node, %d "
                            + "inversions", grants(), Report.millis(p(0.5)), 100 * moved(), inversions());
        }
    }

    /** One turn ({@link HotKey}): each holds the key {@link #HOLD_MILLIS}; the grants in the order given. */
    private List<Grant> contend(Contender a, Contender b, String key, Duration time) throws Exception {
        List<Grant> grants = Collections.synchronizedList(new ArrayList<>());
        HotKey.run(a, b, key, time, "fairness-bench", (thread, asked) -> {
            long granted = System.nanoTime();
            Thread.sleep(HOLD_MILLIS);
            grants.add(new Grant(thread, thread / 2, asked, granted, System.nanoTime()));
        });
        List<Grant> ordered = new ArrayList<>(grants);
        ordered.sort(Comparator.comparingLong(Grant::granted));
        return ordered;
    }
}
