package io.github.lockmanager.spring.boot;

import java.util.List;

/** The endpoint, health indicator, meters and admin page of an application whose locks are in Redis. */
class RedisActuatorAndAdminPageTest extends ActuatorAndAdminPageTest {
    @Override
    List<String> storeSettings(String client, String nodeId) {
        return BootApps.redis(client, nodeId);
    }
}
