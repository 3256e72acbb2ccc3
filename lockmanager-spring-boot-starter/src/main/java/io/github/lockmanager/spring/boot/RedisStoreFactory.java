package io.github.lockmanager.spring.boot;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.redis.RedisLockStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the Redis store; loaded only when {@code lockmanager-redis} is on the class path. On the application's Lettuce
 * client when it has one; else on a client of the store's own, made from Spring Boot's {@code spring.data.redis.*}
 * settings (cluster nodes, a Sentinel master, a URL, or host and port, in that order, as Spring Boot reads them), which
 * the store shuts down when it closes.
 */
final class RedisStoreFactory {
    private RedisStoreFactory() {
    }

    static LockStore build(Object client, LockManagerProperties properties, Environment environment) {
        RedisLockStore.Builder builder;
        if (client instanceof RedisClusterClient cluster) {
            builder = RedisLockStore.builder(cluster);
        } else if (client instanceof RedisClient single) {
            builder = RedisLockStore.builder(single);
        } else {
            builder = fromSettings(Binder.get(environment).bind("spring.data.redis", RedisProperties.class)
                    .orElseGet(RedisProperties::new));
        }
        LockManagerProperties.Redis settings = properties.getRedis();
        Settings.apply("redis.key-prefix", settings.getKeyPrefix(), builder::keyPrefix);
        Settings.apply("redis.restart-quarantine", settings.getRestartQuarantine(), builder::restartQuarantine);
        if (settings.getConfirmReplicas() != 0) {
            Settings.apply("redis.confirm-replicas", settings.getConfirmReplicas(),
                    replicas -> builder.confirmReplicas(replicas, settings.getConfirmTimeout()));
        }
        StoreSelection.applyCommon(builder, properties);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw Settings.invalid("redis.confirm-replicas", settings.getConfirmReplicas(), e.getMessage());
        }
    }

    private static RedisLockStore.Builder fromSettings(RedisProperties redis) {
        List<String> clusterNodes = redis.getCluster() == null ? List.of() : redis.getCluster().getNodes();
        if (clusterNodes != null && !clusterNodes.isEmpty()) {
            List<RedisURI> seeds = new ArrayList<>();
            for (String node : clusterNodes) {
                seeds.add(withCredentials(RedisURI.create("redis://" + node), redis.getUsername(), redis.getPassword(),
                        redis));
            }
            return RedisLockStore.clusterBuilder(seeds);
        }
        if (redis.getSentinel() != null && redis.getSentinel().getMaster() != null) {
            RedisURI.Builder sentinel = RedisURI.builder().withSentinelMasterId(redis.getSentinel().getMaster())
                    .withDatabase(redis.getDatabase());
            for (String node : redis.getSentinel().getNodes()) {
                int colon = node.lastIndexOf(':');
                sentinel.withSentinel(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)));
            }
            return RedisLockStore.builder(withCredentials(sentinel.build(), redis.getUsername(), redis.getPassword(),
                    redis));
        }
        if (redis.getUrl() != null) {
            return RedisLockStore.builder(redis.getUrl());
        }
        RedisURI uri = RedisURI.builder().withHost(redis.getHost()).withPort(redis.getPort())
                .withDatabase(redis.getDatabase()).build();
        return RedisLockStore.builder(withCredentials(uri, redis.getUsername(), redis.getPassword(), redis));
    }

    private static RedisURI withCredentials(RedisURI uri, String username, String password, RedisProperties redis) {
        if (password != null && username != null) {
            uri.setAuthentication(username, password.toCharArray());
        } else if (password != null) {
            uri.setAuthentication(password.toCharArray());
        }
        uri.setSsl(redis.getSsl() != null && redis.getSsl().isEnabled());
        if (redis.getTimeout() != null) {
            uri.setTimeout(redis.getTimeout());
        }
        return uri;
    }
}
