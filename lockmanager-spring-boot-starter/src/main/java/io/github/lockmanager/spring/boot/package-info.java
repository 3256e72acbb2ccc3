/**
 * Spring Boot auto-configuration: one manager built from the application's store client and
 * {@code lockmanager.*} properties, {@link io.github.lockmanager.spring.boot.ClusterLocked} methods, the Actuator
 * endpoint and health indicator, the admin page.
 */
package io.github.lockmanager.spring.boot;
