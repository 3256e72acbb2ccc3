package io.github.lockmanager.bench;

import java.lang.reflect.Method;

public final class ScratchRedisPeers {
    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fullRun();
        Report report = new Report();
        PeerBench bench = new PeerBench(settings, report);
        Method compare = PeerBench.class.getDeclaredMethod("compare", PeerBench.Factory.class, PeerBench.Factory.class, String.class);
        compare.setAccessible(true);
        String run = Long.toHexString(System.nanoTime());
        PeerBench.Factory ours = node -> new RedisContenders.Ours(node, "scratch-" + run);
        String which = args.length > 0 ? args[0] : "rlock";
        PeerBench.Factory peer = switch (which) {
            case "fenced" -> node -> new RedisContenders.RedissonFenced();
            case "spring" -> node -> new RedisContenders.SpringIntegration("scratch-" + run);
            default -> node -> new Contenders.RedissonLock();
        };
        compare.invoke(bench, ours, peer, "Redis");
        System.out.println(report.table());
        System.exit(0);
    }
}
